import { useId } from 'react';
import type { ImageRect } from '../../../protocol/index.js';
import { markRadius, type PictureSize } from '../../model/screenMarks.js';
import './screen.css';

/** The picture's blacked-out rectangles (the supervisor itself, excluded apps), hatched and labelled "masked". */
export function MaskedRects({ rects, size }: { rects: readonly ImageRect[]; size: PictureSize }) {
  const id = `hatch-${useId().replace(/[^A-Za-z0-9_-]/g, '')}`;
  if (rects.length === 0) return null;
  const r = markRadius(size);
  return (
    <g data-testid="screen-masked">
      <defs>
        <pattern id={id} patternUnits="userSpaceOnUse" width={r} height={r} patternTransform="rotate(45)">
          <line className="mask-hatch" x1={0} y1={0} x2={0} y2={r} strokeWidth={r / 3} />
        </pattern>
      </defs>
      {rects.map((m, i) => (
        <g key={i} data-testid="screen-masked-rect">
          <rect className="mask-fill" x={m.x} y={m.y} width={m.w} height={m.h} fill={`url(#${id})`} />
          {m.w > r * 4 && m.h > r * 1.5 && (
            <text className="mark-label" x={m.x + m.w / 2} y={m.y + m.h / 2} fontSize={r} textAnchor="middle" dominantBaseline="middle">
              masked
            </text>
          )}
        </g>
      ))}
    </g>
  );
}
