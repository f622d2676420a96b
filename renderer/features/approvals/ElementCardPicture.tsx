import { useContext } from 'react';
import type { ElementApproval, ScreenCard } from '../../../protocol/index.js';
import { ElementBox } from '../screen/ElementBox.js';
import { MaskedRects } from '../screen/MaskedRects.js';
import { ZoomablePicture } from '../screen/ZoomablePicture.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { PictureRoom } from './pictureRoom.js';
import { useCardPicture } from './useCardPicture.js';

/**
 * An element_act card's picture (docs/supervision.md#card-pictures): the region of the target window
 * around the element, as it looked when the action was checked, at the screen's scale with the
 * element outlined, opening the whole window full size; or, when none could be taken, why (the card
 * still names the element and its path).
 */
export function ElementCardPicture({ card }: { card: ElementApproval }) {
  const p = card.picture;
  if (p === undefined) {
    if (card.picture_unavailable === undefined) return null;
    return (
      <p className="muted small" data-testid="card-picture-unavailable">
        No picture of the window: <UntrustedText text={card.picture_unavailable} limit={500} />
      </p>
    );
  }
  return <WindowPicture card={card} p={p} />;
}

/** The element card's region (CSS px): tall enough for a control with its label and neighbours, short enough for a queue. */
const REGION = { maxHeight: 200, minHeight: 120, margin: 40 } as const;
/** In a card in the queue: as tall as the card leaves room for, up to this. */
const COMPACT_MAX = 260;

function WindowPicture({ card, p }: { card: ElementApproval; p: ScreenCard }) {
  const { ref, picture, error } = useCardPicture(card.approval_id, 'picture', p.picture);
  // In the queue the card's place bounds the region, and it fills what the card leaves (up to a screenful of context); in the details it has its own height.
  const room = useContext(PictureRoom);
  const region =
    room === undefined
      ? REGION
      : { margin: Math.min(REGION.margin, Math.floor(room / 5)), maxHeight: Math.min(COMPACT_MAX, room), minHeight: Math.min(COMPACT_MAX, room) };
  const what = `${card.target.role}${card.target.name !== undefined ? ` “${card.target.name}”` : ''}`;
  const alt = `The window “${card.window.title}” as it looked when checked, ${what} outlined`;
  const size = { width: p.width, height: p.height };
  const outline = p.outline;
  // Screen pixels per picture pixel, from the element's own rectangle: shown at this many CSS px per picture pixel, the region is the screen 1:1.
  const rect = card.target.rect;
  const oneToOne = outline !== undefined && rect !== undefined && rect.w > 0 && outline.w > 0 ? rect.w / outline.w : 1;
  return (
    <figure className="card-picture" data-testid="card-picture-figure">
      <ZoomablePicture
        boxRef={ref}
        src={picture}
        width={p.width}
        height={p.height}
        alt={alt}
        what="the window as it looked when checked"
        testId="card-picture"
        marks={<MaskedRects rects={p.masked} size={size} />}
        overlay={outline !== undefined ? <ElementBox rect={outline} size={size} /> : undefined}
        {...(outline !== undefined ? { crop: { focus: outline, scale: oneToOne, ...region } } : {})}
      />
      <figcaption className="muted small">
        {outline !== undefined
          ? 'Around the element, as it looked when checked (outlined); click for the whole window.'
          : 'The window as it looked when checked; click to enlarge.'}
        {error !== undefined && (
          <>
            {' '}
            The picture could not be fetched: <UntrustedText text={error} limit={500} />
          </>
        )}
      </figcaption>
    </figure>
  );
}
