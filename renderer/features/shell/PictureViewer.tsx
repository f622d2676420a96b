import { useEffect, useRef, type ReactNode, type SyntheticEvent } from 'react';
import { createPortal } from 'react-dom';
import { escapeHiddenPlain } from '../../../protocol/index.js';
import './shell.css';

interface Props {
  /** What the picture shows, in words: the dialog's name. */
  title: string;
  /** The picture at full size. */
  children: ReactNode;
  onClose: () => void;
}

/** Keys the viewer lets through to its own controls: moving the focus, and pressing the focused button. */
const PASS = new Set(['Tab', 'Enter', ' ']);

/** React events inside the viewer stay there: the card it was opened from reacts to pointer and key events. */
const contain = (e: SyntheticEvent): void => e.stopPropagation();

/**
 * A picture at full size in a modal dialog (docs/supervision.md#card-pictures). Everything behind it
 * is inert while it is open, and no keypress reaches the page: a key meant for the picture must
 * never decide the card underneath (the queue's A, D and S listen on the document). Escape or the
 * Close button closes it, and the focus returns to what opened it.
 */
export function PictureViewer({ title, children, onClose }: Props) {
  const ref = useRef<HTMLDialogElement | null>(null);
  const closeButton = useRef<HTMLButtonElement | null>(null);
  const close = useRef(onClose);
  close.current = onClose;
  // What had the focus when the viewer first rendered (before it took the focus): it gets it back.
  const opener = useRef(document.activeElement instanceof HTMLElement ? document.activeElement : null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    const back = opener.current;
    dialog.showModal();
    closeButton.current?.focus();
    // Captured on the window, before any listener of the page: only the viewer's own keys go on.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopImmediatePropagation();
        close.current();
        return;
      }
      if (PASS.has(e.key) && dialog.contains(e.target instanceof Node ? e.target : null)) {
        e.stopImmediatePropagation();
        return;
      }
      e.stopImmediatePropagation();
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
      back?.focus();
    };
  }, []);
  const name = escapeHiddenPlain(title);
  return createPortal(
    <dialog
      ref={ref}
      className="picture-viewer"
      aria-label={name}
      data-testid="picture-viewer"
      data-keys="own"
      onClick={(e) => {
        contain(e);
        // A click on the backdrop (the dialog itself, outside its content) closes it.
        if (e.target === ref.current) onClose();
      }}
      onPointerDown={contain}
      onPointerUp={contain}
      onMouseDown={contain}
      onKeyDown={contain}
    >
      <div className="picture-viewer-head">
        <span className="picture-viewer-title small">{name}</span>
        <button type="button" ref={closeButton} onClick={onClose} data-testid="picture-viewer-close">
          Close <kbd>Esc</kbd>
        </button>
      </div>
      <div className="picture-viewer-body" data-testid="picture-viewer-body" tabIndex={0}>
        {children}
      </div>
    </dialog>,
    document.body,
  );
}
