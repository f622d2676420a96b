import { useEffect, type RefObject } from 'react';
import { appStore } from '../../store/useApp.js';

/**
 * Tracks whether the pointer is over the queue (its column, scrollbar included): while it is,
 * placeholders never collapse. Native listeners on the document, not React's enter/leave: those
 * miss the leave when the element under the pointer was removed (a decided card's button is).
 */
export function usePointerInQueue(root: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const area = (): HTMLElement | null => root.current?.parentElement ?? root.current;
    const update = (e: PointerEvent) => appStore.getState().setPointerInQueue(e.target instanceof Node && (area()?.contains(e.target) ?? false));
    const out = (e: PointerEvent) => {
      if (e.relatedTarget === null) appStore.getState().setPointerInQueue(false);
    };
    document.addEventListener('pointerover', update);
    document.addEventListener('pointermove', update, { passive: true });
    document.addEventListener('pointerout', out);
    return () => {
      document.removeEventListener('pointerover', update);
      document.removeEventListener('pointermove', update);
      document.removeEventListener('pointerout', out);
    };
  }, [root]);
}
