import { useEffect } from 'react';
import { selectLive } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { useApi } from './apiContext.js';

/** At most one presence report in this long while the person keeps using the page. */
const PRESENCE_MS = 20_000;

/**
 * Tells the supervisor a person is here (computer_ctrl tells agents whether a person is watching):
 * when the page is shown or hidden, and when the person moves the pointer or presses a key, at
 * most once every 20 s. A failed report is not the person's problem: it is dropped.
 */
export function usePresence(): void {
  const api = useApi();
  const live = useApp(selectLive);
  useEffect(() => {
    if (!live) return;
    let last = 0;
    const report = (force: boolean) => {
      const now = Date.now();
      const visible = document.visibilityState === 'visible';
      if (!force && (!visible || now - last < PRESENCE_MS)) return;
      last = now;
      api.command('presence', { visible }).catch(() => {});
    };
    const onActivity = () => report(false);
    const onVisibility = () => report(true);
    report(true);
    document.addEventListener('pointermove', onActivity, { passive: true });
    document.addEventListener('keydown', onActivity);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      document.removeEventListener('pointermove', onActivity);
      document.removeEventListener('keydown', onActivity);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [api, live]);
}
