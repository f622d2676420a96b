import type { ApprovableCard } from '../../../protocol/index.js';
import { escapeHiddenPlain } from '../../../protocol/index.js';
import { ModalDialog } from '../shell/ModalDialog.js';
import { measureNow } from './useArming.js';
import { ReasonField } from './ReasonField.js';

interface Props {
  card: ApprovableCard;
  online: boolean;
  reason: string;
  onReason: (reason: string) => void;
  onDeny: () => void;
  onCancel: () => void;
}

/**
 * Denying, with what the agent is told (docs/supervision.md#cards-that-fit): a dialog over the card,
 * placed clear of the Deny button that opened it, whose reason field spans it and grows with what
 * is typed, so the person reads all of it before sending. The card underneath does not change or
 * move. Enter denies, Shift+Enter breaks the line, Escape cancels.
 */
export function DenyStep({ card, online, reason, onReason, onDeny, onCancel }: Props) {
  const id = card.approval_id;
  return (
    <ModalDialog
      title={escapeHiddenPlain(`Deny ${card.agent}’s ${card.action}`)}
      onClose={onCancel}
      testId="deny-dialog"
      className="deny-dialog"
      inPlace
      backdropCloses={false}
      avoid={() => document.querySelector(`[data-approval-id="${CSS.escape(id)}"] [data-testid="deny-button"]`)?.getBoundingClientRect()}
    >
      <div className="deny-step">
        <ReasonField
          label="Reason for denying (optional): the agent is told it"
          placeholder="Why not (optional) — Enter denies, Escape cancels"
          testId="deny-reason"
          value={reason}
          onChange={onReason}
          onEnter={onDeny}
          onEscape={onCancel}
        />
        <div className="deny-buttons">
          <button
            type="button"
            className="deny"
            data-testid="deny-confirm"
            disabled={!online}
            onClick={(e) => {
              e.stopPropagation();
              measureNow(e.currentTarget);
              onDeny();
            }}
          >
            Deny
          </button>
          <button type="button" data-testid="deny-cancel" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </ModalDialog>
  );
}
