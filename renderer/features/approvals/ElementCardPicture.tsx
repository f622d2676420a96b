import type { PendingApproval, ScreenCard } from '../../../protocol/index.js';
import { MaskedRects } from '../screen/MaskedRects.js';
import { ScreenPicture } from '../screen/ScreenPicture.js';
import { ElementOutline } from '../windows/ElementOutline.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { useCardPicture } from './useCardPicture.js';

/**
 * An element_act card's picture: the target window as it looked when the action was checked, the
 * element outlined; or, when none could be taken, why (the card still names the element and its path).
 */
export function ElementCardPicture({ card }: { card: PendingApproval }) {
  if (card.screen !== undefined) return null;
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

function WindowPicture({ card, p }: { card: PendingApproval; p: ScreenCard }) {
  const { ref, picture, error } = useCardPicture(card.approval_id, 'picture', p.picture);
  const what = card.target !== undefined ? `${card.target.role}${card.target.name !== undefined ? ` “${card.target.name}”` : ''}` : 'the element';
  return (
    <figure className="card-picture" title="The window as it looked when checked; the element is outlined.">
      <ScreenPicture
        boxRef={ref}
        src={picture}
        width={p.width}
        height={p.height}
        alt={`The window ${card.window !== undefined ? `“${card.window.title}” ` : ''}as it looked when checked, ${what} outlined`}
        testId="card-picture"
      >
        <MaskedRects rects={p.masked} size={{ width: p.width, height: p.height }} />
        {p.outline !== undefined && <ElementOutline rect={p.outline} />}
      </ScreenPicture>
      {error !== undefined && (
        <figcaption className="muted small">
          The picture could not be fetched: <UntrustedText text={error} limit={500} />
        </figcaption>
      )}
    </figure>
  );
}
