import type { ImageRect } from '../../../protocol/index.js';
import type { PictureSize } from '../../model/screenMarks.js';
import './screen.css';

/** Space between the element and its outline, in CSS px: the outline frames the element, never covers its edge. */
export const ELEMENT_BOX_PAD = 4;

/**
 * An element's outline on a card picture, drawn at display scale: a 2 px frame (over a dark halo)
 * `ELEMENT_BOX_PAD` px outside the element's rectangle, so even a checkbox a few picture pixels
 * tall stays visible inside it (docs/supervision.md#card-pictures).
 */
export function ElementBox({ rect, size }: { rect: ImageRect; size: PictureSize }) {
  const pct = (v: number, whole: number): string => `${(v / whole) * 100}%`;
  return (
    <span
      className="element-box"
      data-testid="card-outline"
      data-x={rect.x}
      data-y={rect.y}
      data-w={rect.w}
      data-h={rect.h}
      style={{
        left: `calc(${pct(rect.x, size.width)} - ${ELEMENT_BOX_PAD}px)`,
        top: `calc(${pct(rect.y, size.height)} - ${ELEMENT_BOX_PAD}px)`,
        width: `calc(${pct(rect.w, size.width)} + ${2 * ELEMENT_BOX_PAD}px)`,
        height: `calc(${pct(rect.h, size.height)} + ${2 * ELEMENT_BOX_PAD}px)`,
      }}
      aria-hidden="true"
    />
  );
}
