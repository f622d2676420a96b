import { createContext, useContext, useLayoutEffect, useState, type RefObject } from 'react';

/**
 * The height (CSS px) a compact card leaves for its picture (docs/supervision.md#card-pictures):
 * a card in the queue has the height of its place, and its picture takes what its words and
 * controls leave. Undefined outside a compact card (the details dialog): a picture takes its own
 * height there.
 */
export const PictureRoom = createContext<number | undefined>(undefined);

/** The room a picture has, or `fallback` where nothing bounds it. */
export function usePictureRoom(fallback: number): number {
  return useContext(PictureRoom) ?? fallback;
}

/** The height of an element, kept current as it changes (the card's picture area). */
export function useHeight(ref: RefObject<HTMLElement | null>): number | undefined {
  const [height, setHeight] = useState<number | undefined>(undefined);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el === null) return;
    const measure = () => setHeight(Math.floor(el.clientHeight));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return height;
}
