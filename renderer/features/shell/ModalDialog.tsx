import { useEffect, useRef, type ReactNode, type SyntheticEvent } from 'react';
import { createPortal } from 'react-dom';
import { escapeHiddenPlain } from '../../../protocol/index.js';
import { topAvoiding } from '../../model/dialogPlace.js';
import './shell.css';

interface Props {
  /** What the dialog shows, in words: its name (plain text; hidden characters are written as escapes). */
  title: string;
  children: ReactNode;
  onClose: () => void;
  /** The test id of the dialog; its close button is `<testId>-close`, its body `<testId>-body`. */
  testId: string;
  className?: string;
  /**
   * Rendered where it is declared instead of at the end of the page: a dialog holding controls that
   * decide (a confirm step) stays inside the queue, where arming measures it. On screen it is the
   * same either way (a modal dialog is drawn above the page).
   */
  inPlace?: boolean;
  /**
   * What the dialog must not cover (the button that opened a second step): it is placed above that
   * rectangle, or below it, so a repeated click there lands on the backdrop, never on the dialog's
   * own controls. Read once, when the dialog opens.
   */
  avoid?: () => DOMRect | undefined;
  /** Whether a click on the backdrop closes it (a picture, details); a second step stays, so a repeated first click does not undo it. */
  backdropCloses?: boolean;
}

/** Keys the dialog lets through to its own controls: moving the focus, pressing the focused button, arrows for radio groups. */
const PASS = new Set(['Tab', 'Enter', ' ']);

/** React events inside the dialog stay there: the card it was opened from reacts to pointer and key events. */
const contain = (e: SyntheticEvent): void => e.stopPropagation();

/**
 * A modal dialog (a picture at full size, a card's details, a second step). Everything behind it is
 * inert while it is open, and no keypress reaches the page: a key meant for the dialog must never
 * decide a card underneath (the queue's A, D and S listen on the document). Escape or the Close
 * button closes it, and the focus returns to what opened it.
 */
export function ModalDialog({ title, children, onClose, testId, className, inPlace = false, avoid, backdropCloses = true }: Props) {
  const ref = useRef<HTMLDialogElement | null>(null);
  const closeButton = useRef<HTMLButtonElement | null>(null);
  const close = useRef(onClose);
  close.current = onClose;
  const avoided = useRef(avoid);
  // What had the focus when the dialog first rendered (before it took the focus): it gets it back.
  const opener = useRef(document.activeElement instanceof HTMLElement ? document.activeElement : null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    const back = opener.current;
    dialog.showModal();
    const r = avoided.current?.();
    if (r !== undefined) {
      const top = topAvoiding(r, dialog.getBoundingClientRect().height, window.innerHeight);
      // Fits neither above nor below: at the top of the window, its controls at its bottom, clear of a button near the bottom.
      dialog.style.margin = `${top ?? 8}px auto auto`;
    }
    // The field the dialog is for (data-autofocus: a reason to type), else its Close button.
    (dialog.querySelector<HTMLElement>('[data-autofocus]') ?? closeButton.current)?.focus();
    // Captured on the window, before any listener of the page: only the dialog's own keys go on.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopImmediatePropagation();
        close.current();
        return;
      }
      const inside = dialog.contains(e.target instanceof Node ? e.target : null);
      // A key inside goes on to the dialog's own handlers (a reason field's Enter); the page's keys ignore it
      // (the dialog is data-keys="own"). Nothing outside hears a key while it is open.
      if (!inside) e.stopImmediatePropagation();
      if (inside && (PASS.has(e.key) || e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement)) return;
      if (!e.key.startsWith('Arrow') && !e.key.startsWith('Page') && e.key !== 'Home' && e.key !== 'End') e.preventDefault();
    };
    // The dialog's own Escape handling (cancel) is replaced by ours, so the close always goes through onClose.
    const onCancel = (e: Event) => e.preventDefault();
    window.addEventListener('keydown', onKey, true);
    dialog.addEventListener('cancel', onCancel);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      back?.focus({ preventScroll: true });
    };
  }, []);
  const name = escapeHiddenPlain(title);
  const dialog = (
    <dialog
      ref={ref}
      className={`modal-dialog${className !== undefined ? ` ${className}` : ''}`}
      aria-label={name}
      data-testid={testId}
      data-keys="own"
      onClick={(e) => {
        contain(e);
        // A click on the backdrop (the dialog itself, outside its content) closes it.
        if (e.target === ref.current && backdropCloses) onClose();
      }}
      onPointerDown={contain}
      onPointerUp={contain}
      onMouseDown={contain}
      onKeyDown={contain}
      onFocus={contain}
    >
      <div className="modal-dialog-head">
        <span className="modal-dialog-title small">{name}</span>
        <button type="button" ref={closeButton} onClick={onClose} data-testid={`${testId}-close`}>
          Close <kbd>Esc</kbd>
        </button>
      </div>
      <div className="modal-dialog-body" data-testid={`${testId}-body`} tabIndex={0}>
        {children}
      </div>
    </dialog>
  );
  return inPlace ? dialog : createPortal(dialog, document.body);
}
