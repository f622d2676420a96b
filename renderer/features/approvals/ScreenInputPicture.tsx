import type { ScreenApproval } from '../../../protocol/index.js';
import { pictureAlt } from '../../model/screenDescribe.js';
import { InputMarks } from '../screen/InputMarks.js';
import { MaskedRects } from '../screen/MaskedRects.js';
import { PointMark } from '../screen/PointMark.js';
import { ZoomablePicture } from '../screen/ZoomablePicture.js';
import { usePictureRoom } from './pictureRoom.js';
import { useCardPicture } from './useCardPicture.js';

/** The region around the point on the card (CSS px): the crop is the screen 1:1, its point centred. */
const REGION = { maxHeight: 180, margin: 24 } as const;

/**
 * What a screen input's card shows first: the screen around the point at full resolution, large
 * enough to read, the point marked so that its pixel stays visible; then the picture the agent
 * planned on (or one captured for the card, said so) with the input marked. Either opens full size.
 */
export function ScreenInputPicture({ card }: { card: ScreenApproval }) {
  const { card: pic, detail } = card.screen;
  const whole = useCardPicture(card.approval_id, 'screen', pic.picture);
  const part = useCardPicture(card.approval_id, 'crop', pic.crop?.picture ?? '');
  const size = { width: pic.width, height: pic.height };
  const crop = pic.crop;
  // In the queue the card's place bounds the crop; in the details it has its own height.
  const room = usePictureRoom(REGION.maxHeight);
  const cropHeight = Math.min(REGION.maxHeight, room);
  return (
    <div className={`screen-input${crop !== undefined ? ' with-crop' : ''}`} data-testid="screen-input" data-planned={String(pic.planned)}>
      {crop !== undefined && (
        <figure className="screen-crop">
          <ZoomablePicture
            boxRef={part.ref}
            src={part.picture}
            width={crop.width}
            height={crop.height}
            alt={`The screen at full resolution around the point, ${crop.width}×${crop.height}, the point marked.`}
            what="the screen around the point"
            testId="screen-crop"
            className="pixelated"
            overlay={<PointMark size={{ width: crop.width, height: crop.height }} point={crop.point} />}
            crop={{ focus: { x: crop.point.x, y: crop.point.y, w: 1, h: 1 }, scale: 1, margin: REGION.margin, maxHeight: cropHeight, minHeight: cropHeight }}
          />
          <figcaption className="muted small">the screen around the point, 1:1</figcaption>
        </figure>
      )}
      <figure className="screen-whole">
        <ZoomablePicture
          boxRef={whole.ref}
          src={whole.picture}
          width={pic.width}
          height={pic.height}
          alt={pictureAlt(card)}
          what={pic.planned ? 'the screenshot the agent planned on' : 'the screenshot captured for this card'}
          testId="screen-picture"
          marks={
            <>
              <MaskedRects rects={pic.masked} size={size} />
              <InputMarks size={size} point={pic.point} to={pic.to} direction={pic.direction} amount={detail.amount} />
            </>
          }
          overlay={pic.point !== undefined ? <PointMark size={size} point={pic.point} small={crop !== undefined} /> : undefined}
        />
        <figcaption className="muted small">
          {pic.planned ? (
            'the screenshot the agent planned on'
          ) : (
            <span className="screen-unplanned" data-testid="screen-unplanned">
              captured for this card: the agent named no screenshot
            </span>
          )}
        </figcaption>
      </figure>
    </div>
  );
}
