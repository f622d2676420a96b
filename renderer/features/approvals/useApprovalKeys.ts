import { useEffect } from 'react';
import { appStore } from '../../store/useApp.js';
import type { Decision } from './decide.js';

/** True when a key press belongs to a text field or a widget with its own keys. */
function ownedElsewhere(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target.closest('input, textarea, select, [data-keys="own"]') !== null) return true;
  return false;
}

/**
 * Queue keys, anywhere on the page outside text fields: ↓/j and ↑/k move between cards, A approves,
 * S approves and allows for the session, D opens the deny reason. Enter and Space never decide;
 * a repeated (held) key never decides.
 */
export function useApprovalKeys(decide: (id: string, d: Decision) => boolean): void {
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || ownedElsewhere(e.target)) return;
      const s = appStore.getState();
      if (s.pending.length === 0) return;
      const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      const selected = s.selectedApproval;
      switch (key) {
        case 'ArrowDown':
        case 'j':
          s.moveApproval(1);
          break;
        case 'ArrowUp':
        case 'k':
          s.moveApproval(-1);
          break;
        case 'a':
          if (e.repeat || selected === undefined) return;
          decide(selected, { kind: 'approve' });
          break;
        case 's':
          if (e.repeat || selected === undefined) return;
          decide(selected, { kind: 'allow_for_session' });
          break;
        case 'd':
          if (e.repeat || selected === undefined) return;
          s.setDenying(selected);
          break;
        default:
          return;
      }
      e.preventDefault();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [decide]);
}
