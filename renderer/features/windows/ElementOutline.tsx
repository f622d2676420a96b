import type { PictureRect } from '../../model/screenMarks.js';

/** The selected element's rectangle on the screen picture (picture pixels), dashed over a dark halo. */
export function ElementOutline({ rect }: { rect: PictureRect }) {
  return (
    <g data-testid="screen-outline" data-x={rect.x} data-y={rect.y} data-w={rect.w} data-h={rect.h}>
      <rect className="mark-outline-halo" x={rect.x} y={rect.y} width={rect.w} height={rect.h} />
      <rect className="mark-outline" x={rect.x} y={rect.y} width={rect.w} height={rect.h} />
    </g>
  );
}
