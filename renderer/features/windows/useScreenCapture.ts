import { useCallback, useEffect, useRef } from 'react';
import { ApiError } from '../../api/api.js';
import { selectLastDispatch, selectLive, selectViewedConnection } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';
import { useApi } from '../shell/apiContext.js';

/** How long after an action reached an application the screen is captured again (it repaints first). */
const AFTER_DISPATCH_MS = 400;

/**
 * Captures `window` (undefined: the whole screen) for the Screen view: now, whenever the window
 * or the desktop shown changes, and again after each action that reached an application. Returns a capture-now function
 * for the Refresh button. A failure is kept typed in the store for the view to say.
 */
export function useScreenCapture(window: string | undefined): () => void {
  const api = useApi();
  const live = useApp(selectLive);
  const lastDispatch = useApp(selectLastDispatch);
  // Another desktop shown is another screen: captured anew even when the view shows the whole screen both times.
  const viewed = useApp(selectViewedConnection);
  const capture = useCallback(() => {
    const request = appStore.getState().screenRequested(window);
    api.command('screen_view', window !== undefined ? { window } : {}).then(
      (view) => appStore.getState().screenAnswered(request, { view }),
      (error: unknown) =>
        appStore.getState().screenAnswered(request, {
          error: error instanceof ApiError ? { code: error.info.code, detail: error.info.detail } : { code: 'internal', detail: String(error) },
        }),
    );
  }, [api, window, viewed]);

  useEffect(() => {
    if (live) capture();
  }, [live, capture]);

  const seen = useRef(lastDispatch);
  useEffect(() => {
    if (lastDispatch === seen.current) return;
    seen.current = lastDispatch;
    if (!live) return;
    const timer = setTimeout(capture, AFTER_DISPATCH_MS);
    return () => clearTimeout(timer);
  }, [lastDispatch, live, capture]);

  return capture;
}
