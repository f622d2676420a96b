import { selectRefusal } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';

/**
 * The reserved note line under a card's controls (its height never changes): why a click did
 * nothing, else that the card is still arming, else `hint`.
 */
export function CardNote({ id, online, armed, hint = '' }: { id: string; online: boolean; armed: boolean; hint?: string }) {
  const note = useApp(selectRefusal(id));
  return (
    <p className="card-note" data-testid="card-note-line">
      <span role="status" data-testid="card-note">
        {note?.text ?? ''}
      </span>
      {note === undefined && (
        <span className="muted" aria-hidden="true">
          {!online ? 'Not connected: nothing can be decided now.' : !armed ? 'Arming — read the card first.' : hint}
        </span>
      )}
    </p>
  );
}
