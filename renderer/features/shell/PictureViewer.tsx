import type { ReactNode } from 'react';
import { ModalDialog } from './ModalDialog.js';

interface Props {
  /** What the picture shows, in words: the dialog's name. */
  title: string;
  /** The picture at full size. */
  children: ReactNode;
  onClose: () => void;
}

/** A picture at full size in a modal dialog (docs/supervision.md#card-pictures); see ModalDialog for what it keeps from the page. */
export function PictureViewer({ title, children, onClose }: Props) {
  return (
    <ModalDialog title={title} onClose={onClose} testId="picture-viewer" className="picture-viewer">
      {children}
    </ModalDialog>
  );
}
