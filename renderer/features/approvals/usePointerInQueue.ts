import { useEffect, type RefObject } from 'react';
import { appStore } from '../../store/useApp.js';

/** Where the pointer was last seen on the page (viewport pixels); undefined before it moved or after it left the page. */
let pointer: { x: number; y: number } | undefined;

/** The pointer's last position, for placing cards away from it (docs/supervision.md#where-the-next-card-appears). */
export function pointerAt(): { x: number; y: number } | undefined {
  return pointer;
}

/** Whether the pointer is inside a rectangle (viewport pixels). */
export function pointerWithin(r: { left: number; top: number; right: number; bottom: number }): boolean {
  return pointer !== undefined && pointer.x >= r.left && pointer.x <= r.right && pointer.y >= r.top && pointer.y <= r.bottom;
}

/**
 * Tracks whether the pointer is over the queue (its column, scrollbar included), and where it is:
 * while it is over the queue, decided cards at the queue's end stay, and the queue places nothing
 * under it. Native listeners on the document, not React's enter/leave: those miss the leave when
 * the element under the pointer was removed (a decided card's button is).
 */
export function usePointerInQueue(root: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const area = (): HTMLElement | null => root.current?.parentElement ?? root.current;
    const update = (e: PointerEvent) => {
      pointer = { x: e.clientX, y: e.clientY };
      appStore.getState().setPointerInQueue(e.target instanceof Node && (area()?.contains(e.target) ?? false));
    };
    const out = (e: PointerEvent) => {
      if (e.relatedTarget !== null) return;
      pointer = undefined;
      appStore.getState().setPointerInQueue(false);
    };
    document.addEventListener('pointerover', update);
    document.addEventListener('pointermove', update, { passive: true });
    document.addEventListener('pointerdown', update, { passive: true });
    document.addEventListener('pointerout', out);
    return () => {
      document.removeEventListener('pointerover', update);
      document.removeEventListener('pointermove', update);
      document.removeEventListener('pointerdown', update);
      document.removeEventListener('pointerout', out);
    };
  }, [root]);
}
