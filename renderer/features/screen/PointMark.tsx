import type { Point } from '../../../protocol/index.js';
import { POINT_MARK, pixelCenter, pointMarkLines, type PictureSize } from '../../model/screenMarks.js';
import './screen.css';

const LINES = pointMarkLines();
/** On a thumbnail (the whole screen beside its 1:1 crop) the mark is half as large: it points, the crop shows. */
const SMALL_LINES = pointMarkLines({ gap: POINT_MARK.gap / 2, arm: POINT_MARK.arm / 2, tick: POINT_MARK.tick / 2 });
const SIZE = POINT_MARK.half * 2;

/**
 * Where an input lands: corner brackets and ticks around the point, drawn at display scale over the
 * picture (its position in percent of the picture, its strokes in CSS px), so the target pixel and
 * the text around it stay visible at any size the picture is shown.
 */
export function PointMark({ size, point, small = false }: { size: PictureSize; point: Point; small?: boolean }) {
  const c = pixelCenter(point);
  const lines = small ? SMALL_LINES : LINES;
  return (
    <span
      className={`point-mark${small ? ' small' : ''}`}
      data-testid="screen-mark-point"
      data-x={c.x}
      data-y={c.y}
      style={{ left: `${(c.x / size.width) * 100}%`, top: `${(c.y / size.height) * 100}%` }}
      aria-hidden="true"
    >
      <svg width={SIZE} height={SIZE} viewBox={`${-POINT_MARK.half} ${-POINT_MARK.half} ${SIZE} ${SIZE}`}>
        {lines.map((l) => (
          <polyline key={`h${l}`} className="point-mark-halo" points={l} />
        ))}
        {lines.map((l) => (
          <polyline key={l} className="point-mark-line" points={l} />
        ))}
      </svg>
    </span>
  );
}
