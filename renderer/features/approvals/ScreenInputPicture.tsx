import type { ScreenApproval } from '../../../protocol/index.js';
import { pictureAlt } from '../../model/screenDescribe.js';
import { ElementBox } from '../screen/ElementBox.js';
import { InputMarks } from '../screen/InputMarks.js';
import { MaskedRects } from '../screen/MaskedRects.js';
import { PointMark } from '../screen/PointMark.js';
import { ZoomablePicture } from '../screen/ZoomablePicture.js';
import { usePictureRoom } from './pictureRoom.js';
import { useCardPicture } from './useCardPicture.js';

/** The region around the point on the card (CSS px): the crop is the screen 1:1, its point centred. */
const REGION = { maxHeight: 180, margin: 24 } as const;

/** What the crop shows, for its caption and alt text (docs/supervision.md#card-pictures). */
function cropWords(crop: NonNullable<ScreenApproval['screen']['card']['crop']>): { caption: string; alt: string; what: string } {
  const size = `${crop.width}×${crop.height}`;
  if (crop.point === undefined)
    return {
      caption: 'where the keys go: the element with the keyboard focus, outlined',
      alt: `The screen around the element with the keyboard focus, ${size}, the element outlined.`,
      what: 'the screen around the element with the keyboard focus',
    };
  if (crop.whole === true)
    return {
      caption: 'the screen around the point, shrunk: right around it is plain background',
      alt: `The screen around the point, ${size}, shown whole because right around the point it is one colour; the point marked.`,
      what: 'the screen around the point',
    };
  return {
    caption: crop.outline !== undefined ? 'the screen around the point, 1:1, the element there outlined' : 'the screen around the point, 1:1',
    alt: `The screen at full resolution around the point, ${size}, the point marked${crop.outline !== undefined ? ', the element there outlined' : ''}.`,
    what: 'the screen around the point',
  };
}

/**
 * What a screen input's card shows first: the screen at full resolution around the point, large
 * enough to read, the point marked so that its pixel stays visible (shown whole and shrunk when the
 * helper grew a plain crop until it showed something); for keys and text, around the element with
 * the keyboard focus, outlined. Then the picture the agent planned on (or one captured for the
 * card, said so) with the input marked. Either opens full size.
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
  const cropSize = crop !== undefined ? { width: crop.width, height: crop.height } : undefined;
  const focus =
    crop === undefined
      ? undefined
      : crop.point === undefined || crop.whole === true
        ? (crop.outline ?? { x: 0, y: 0, w: crop.width, h: crop.height })
        : { x: crop.point.x, y: crop.point.y, w: 1, h: 1 };
  const words = crop !== undefined ? cropWords(crop) : undefined;
  return (
    <div className={`screen-input${crop !== undefined ? ' with-crop' : ''}`} data-testid="screen-input" data-planned={String(pic.planned)}>
      {crop !== undefined && cropSize !== undefined && focus !== undefined && words !== undefined && (
        <figure className="screen-crop" data-shows={crop.point === undefined ? 'focus' : crop.whole === true ? 'whole' : 'point'}>
          <ZoomablePicture
            boxRef={part.ref}
            src={part.picture}
            width={crop.width}
            height={crop.height}
            alt={words.alt}
            what={words.what}
            testId="screen-crop"
            className="pixelated"
            overlay={
              <>
                {crop.outline !== undefined && <ElementBox rect={crop.outline} size={cropSize} />}
                {crop.point !== undefined && <PointMark size={cropSize} point={crop.point} />}
              </>
            }
            crop={{ focus, scale: 1, margin: REGION.margin, maxHeight: cropHeight, minHeight: cropHeight }}
          />
          <figcaption className="muted small">{words.caption}</figcaption>
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
          overlay={
            pic.point !== undefined ? (
              <PointMark size={size} point={pic.point} small={crop !== undefined} />
            ) : pic.outline !== undefined ? (
              <ElementBox rect={pic.outline} size={size} />
            ) : undefined
          }
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
