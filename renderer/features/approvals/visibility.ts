/** A rectangle in viewport pixels. */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const meet = (a: Box, b: Box): Box => ({
  left: Math.max(a.left, b.left),
  top: Math.max(a.top, b.top),
  right: Math.min(a.right, b.right),
  bottom: Math.min(a.bottom, b.bottom),
});

/** Whether an element cuts off what overflows it (a scroll viewport does). */
function clips(el: Element, styles: Map<Element, boolean>): boolean {
  let known = styles.get(el);
  if (known === undefined) {
    const s = getComputedStyle(el);
    known = s.overflowX !== 'visible' || s.overflowY !== 'visible';
    styles.set(el, known);
  }
  return known;
}

/** The inside of a clipping element, scrollbars excluded. */
function inner(el: Element): Box {
  const r = el.getBoundingClientRect();
  const left = r.left + el.clientLeft;
  const top = r.top + el.clientTop;
  return { left, top, right: left + el.clientWidth, bottom: top + el.clientHeight };
}

/**
 * What of the page an element can be seen through: the window, cut by every ancestor that clips
 * (the queue's scroll viewport), and below a sticky head (`data-sticky-head`) that covers the top
 * of that viewport. One `cache` per measurement: cards share their ancestors.
 */
export function viewOf(el: Element, cache: Map<Element, boolean> = new Map()): Box {
  let box: Box = { left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight };
  for (let a = el.parentElement; a !== null && a !== document.documentElement; a = a.parentElement) {
    // A modal dialog is drawn above the page: what clips the page behind it does not clip it.
    if (a instanceof HTMLDialogElement && a.open) return meet(box, inner(a));
    if (a === document.body || !clips(a, cache)) continue;
    box = meet(box, inner(a));
  }
  const head = el.closest('[data-sticky-root]')?.querySelector('[data-sticky-head]');
  if (head !== null && head !== undefined && !head.contains(el)) box = { ...box, top: Math.max(box.top, head.getBoundingClientRect().bottom) };
  return box;
}

/**
 * The share (0–1) of a rectangle inside a view. Along an axis where the rectangle is longer than
 * the view, filling the view counts as whole: a card taller than the queue can still be read by
 * scrolling it, and must be able to arm.
 */
export function shareIn(r: Box, view: Box): number {
  const axis = (lo: number, hi: number, vlo: number, vhi: number): number => {
    const len = hi - lo;
    const room = vhi - vlo;
    if (len <= 0 || room <= 0) return 0;
    return Math.max(0, Math.min(hi, vhi) - Math.max(lo, vlo)) / Math.min(len, room);
  };
  return axis(r.left, r.right, view.left, view.right) * axis(r.top, r.bottom, view.top, view.bottom);
}

/** The share of an element on screen now (see shareIn). */
export function shareOnScreen(el: Element, cache?: Map<Element, boolean>): number {
  return shareIn(el.getBoundingClientRect(), viewOf(el, cache));
}

/** The nearest ancestor that scrolls vertically (the queue's column), or undefined. */
export function scrollerOf(el: Element): HTMLElement | undefined {
  for (let a = el.parentElement; a !== null && a !== document.body; a = a.parentElement) {
    const y = getComputedStyle(a).overflowY;
    if (y === 'auto' || y === 'scroll') return a;
  }
  return undefined;
}
