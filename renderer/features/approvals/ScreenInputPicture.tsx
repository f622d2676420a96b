import type { PendingApproval } from '../../../protocol/index.js';
import { pictureAlt } from '../../store/screenDescribe.js';
import { InputMarks } from '../screen/InputMarks.js';
import { MaskedRects } from '../screen/MaskedRects.js';
import { ScreenPicture } from '../screen/ScreenPicture.js';
import { useCardPicture } from './useCardPicture.js';

/** A crop is small and shown at full resolution: its mark takes a larger share of it. */
const CROP_MARK_SHARE = 1 / 16;

/**
 * What a screen input's card shows first: the picture the agent planned on (or one captured for the
 * card, said so) with the input marked, and the full-resolution crop around the point.
 */
export function ScreenInputPicture({ card }: { card: PendingApproval }) {
  if (card.screen === undefined) return null;
  return <Pictures card={card} screen={card.screen} />;
}

function Pictures({ card, screen }: { card: PendingApproval; screen: NonNullable<PendingApproval['screen']> }) {
  const { card: pic, detail } = screen;
  const whole = useCardPicture(card.approval_id, 'screen', pic.picture);
  const part = useCardPicture(card.approval_id, 'crop', pic.crop?.picture ?? '');
  const size = { width: pic.width, height: pic.height };
  const crop = pic.crop;
  return (
    <div className="screen-input" data-testid="screen-input" data-planned={String(pic.planned)}>
      {!pic.planned && (
        <p className="screen-unplanned small" data-testid="screen-unplanned">
          captured for this card: the agent named no screenshot
        </p>
      )}
      <ScreenPicture boxRef={whole.ref} src={whole.picture} width={pic.width} height={pic.height} alt={pictureAlt(card)} testId="screen-picture">
        <MaskedRects rects={pic.masked} size={size} />
        <InputMarks size={size} point={pic.point} to={pic.to} direction={pic.direction} amount={detail.amount} />
      </ScreenPicture>
      {crop !== undefined && (
        <figure className="screen-crop">
          <div className="screen-crop-box" style={{ width: crop.width }}>
            <ScreenPicture
              boxRef={part.ref}
              src={part.picture}
              width={crop.width}
              height={crop.height}
              alt={`The screen at full resolution around the point, ${crop.width}×${crop.height}, the point marked.`}
              testId="screen-crop"
              className="pixelated"
            >
              <InputMarks size={{ width: crop.width, height: crop.height }} point={crop.point} share={CROP_MARK_SHARE} />
            </ScreenPicture>
          </div>
          <figcaption className="muted small">full resolution around the point</figcaption>
        </figure>
      )}
    </div>
  );
}
