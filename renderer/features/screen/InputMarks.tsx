import type { Point } from '../../../protocol/index.js';
import { arrow, directionVector, markRadius, pixelCenter, type PictureSize } from '../../model/screenMarks.js';
import './screen.css';

interface Props {
  size: PictureSize;
  point?: Point | undefined;
  to?: Point | undefined;
  direction?: 'up' | 'down' | 'left' | 'right' | undefined;
  /** Scroll detents. */
  amount?: number | undefined;
  /** The mark's radius as a share of the picture's longer side (a small crop wants a larger share). */
  share?: number;
}

/** A line drawn twice: a dark halo under a bright stroke, so it shows on any background. */
function Line({ l, testId }: { l: readonly [number, number, number, number]; testId?: string }) {
  return (
    <g data-testid={testId}>
      <line className="mark-halo" x1={l[0]} y1={l[1]} x2={l[2]} y2={l[3]} />
      <line className="mark-line" x1={l[0]} y1={l[1]} x2={l[2]} y2={l[3]} />
    </g>
  );
}

/**
 * Where an input goes, in picture pixels: an arrow to where a drag ends, the scroll's direction with
 * its detents. The point itself is marked at display scale (PointMark), so the mark never hides it.
 */
export function InputMarks({ size, point, to, direction, amount, share }: Props) {
  const r = markRadius(size, share);
  const c = point !== undefined ? pixelCenter(point) : undefined;
  const drag = c !== undefined && to !== undefined ? arrow(c, pixelCenter(to), r) : undefined;
  const anchor = c ?? { x: size.width / 2, y: size.height / 2 };
  const v = direction !== undefined ? directionVector(direction) : undefined;
  const scroll =
    v !== undefined
      ? arrow({ x: anchor.x + v.x * r * 1.3, y: anchor.y + v.y * r * 1.3 }, { x: anchor.x + v.x * r * 4.5, y: anchor.y + v.y * r * 4.5 }, r)
      : undefined;
  return (
    <g>
      {drag !== undefined && to !== undefined && (
        <g data-testid="screen-mark-drag" data-to-x={to.x + 0.5} data-to-y={to.y + 0.5}>
          <Line l={drag.shaft} />
          <polygon className="mark-head" points={drag.head} />
          <circle className="mark-line" cx={to.x + 0.5} cy={to.y + 0.5} r={r * 0.5} />
        </g>
      )}
      {scroll !== undefined && v !== undefined && (
        <g data-testid="screen-mark-scroll" data-direction={direction}>
          <Line l={scroll.shaft} />
          <polygon className="mark-head" points={scroll.head} />
          <text
            className="mark-label"
            x={anchor.x + v.x * r * 5.6 + (v.x === 0 ? r * 1.2 : 0)}
            y={anchor.y + v.y * r * 5.6 + (v.y === 0 ? -r * 1.2 : 0)}
            fontSize={r * 1.1}
            textAnchor="middle"
            dominantBaseline="middle"
          >
            ×{amount ?? 3}
          </text>
        </g>
      )}
    </g>
  );
}
