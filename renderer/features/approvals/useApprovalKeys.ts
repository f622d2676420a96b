import { useEffect, type RefObject } from 'react';
import { isQuestionOrHandoffCard } from '../../../protocol/index.js';
import { mayAllowForSession } from '../../model/connectionWords.js';
import { QUEUE_NOTE } from '../../store/approvalsSlice.js';
import { appStore } from '../../store/useApp.js';
import { mayAct, type Decision } from './decide.js';

/** True when a key press belongs to a text field or a widget with its own keys. */
function ownedElsewhere(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target.closest('input, textarea, select, [data-keys="own"]') !== null) return true;
  return false;
}

/**
 * Queue keys, anywhere on the page outside text fields: ↓/j and ↑/k move between cards, A approves
 * the selected card, S opens its allow-for-session second step, D opens its deny reason. A key
 * decides only a card that is armed and has been selected for the arming time (after a decision
 * the selection moves on, and the next card must be read first); a refused key says why on the
 * card. Enter and Space never decide; a repeated (held) key never does anything.
 */
export function useApprovalKeys(decide: (id: string, d: Decision, aim: { via: 'key' }) => boolean, list: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || ownedElsewhere(e.target)) return;
      const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      if (!['ArrowDown', 'ArrowUp', 'j', 'k', 'a', 's', 'd'].includes(key)) return;
      const s = appStore.getState();
      const waiting = s.slots.some((x) => x.left === undefined);
      if (!waiting && ['ArrowDown', 'ArrowUp', 'j', 'k'].includes(key)) return;
      e.preventDefault();
      if (key === 'ArrowDown' || key === 'j' || key === 'ArrowUp' || key === 'k') {
        s.moveApproval(key === 'ArrowDown' || key === 'j' ? 1 : -1);
        // A person moving the selection wants to see it: this is the only scroll the queue does by itself.
        list.current?.querySelector('[aria-current="true"]')?.scrollIntoView({ block: 'nearest' });
        return;
      }
      if (e.repeat) return;
      const selected = s.selectedApproval;
      if (selected === undefined) {
        s.refuse(
          QUEUE_NOTE,
          waiting ? 'Not decided: no card is selected — select one with ↑↓ first.' : 'Not decided: nothing waits for a decision.',
          Date.now(),
        );
        return;
      }
      const aim = { via: 'key' } as const;
      // A question is answered and a handoff given back with the card's own controls: A, D and S decide actions only.
      const card = s.slots.find((x) => x.id === selected)?.card;
      if (card !== undefined && isQuestionOrHandoffCard(card)) {
        s.refuse(
          selected,
          card.kind === 'question'
            ? 'Not answered: pick a choice, write an answer or decline on the card.'
            : 'Not sent: give control back with the card’s button.',
          Date.now(),
        );
        return;
      }
      if (key === 's' && card !== undefined && !mayAllowForSession(card)) {
        s.refuse(selected, 'No session rule for this card: a shell command or a new connection is decided one at a time (A or D).', Date.now());
        return;
      }
      if (key === 'a') decide(selected, { kind: 'approve' }, aim);
      else if (key === 'd') {
        if (mayAct(selected, aim)) s.setDenying(selected);
      } else if (s.allowing === selected) s.refuse(selected, 'The second step is open below: choose the scope, then Confirm.', Date.now());
      else if (mayAct(selected, aim)) s.setAllowing(selected);
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [decide, list]);
}
