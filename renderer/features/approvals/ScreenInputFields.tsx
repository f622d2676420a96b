import type { ScreenApproval } from '../../../protocol/index.js';
import { mustReadToEnd } from '../../model/readToEnd.js';
import { bareWords, inputVerb, placeOf, type Place as PlaceWords } from '../../model/screenDescribe.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { WindowLine } from './WindowLine.js';

const KEY_ACTIONS = new Set(['key', 'hold_key']);

/** A window as a card names it: its title and, when it differs, its application. */
function WindowWords({ window: w }: { window: NonNullable<PlaceWords['window']> }) {
  return (
    <>
      “<UntrustedText text={w.title} />”
      {w.app !== '' && w.app !== w.title && (
        <>
          {' '}
          (app <UntrustedText text={w.app} />)
        </>
      )}
    </>
  );
}

/**
 * Where the input lands in words (docs/supervision.md#card-pictures): the element the application
 * names at the point, or that has the keyboard focus, and its window and app; every name is the
 * application's own, shown as untrusted text.
 */
function Place({ place }: { place: PlaceWords | undefined }) {
  if (place === undefined) return <span className="muted">no element or window the tree names</span>;
  if (place.bare)
    return place.window !== undefined ? (
      <>
        <WindowWords window={place.window} />
        <span className="muted">, {bareWords(place.focus)}</span>
      </>
    ) : (
      <span className="muted">no element the application names</span>
    );
  return (
    <>
      the{' '}
      {place.name !== undefined ? (
        <strong>
          “<UntrustedText text={place.name} />”
        </strong>
      ) : (
        'unnamed'
      )}{' '}
      {place.kind}
      {place.focus && ', which has the keyboard focus,'}
      {place.window !== undefined && (
        <>
          {' '}
          in <WindowWords window={place.window} />
        </>
      )}
    </>
  );
}

/**
 * The rows of a screen input's card: the element at the point, the window, the points, and the text
 * or keys. `brief` (the card in the queue) leaves out the window and the points: the element's row
 * names its window, and the details show all.
 */
export function ScreenInputFields({ card, brief = false }: { card: ScreenApproval; brief?: boolean }) {
  const d = card.screen.detail;
  const place = placeOf(card.action, d);
  const keyboard = KEY_ACTIONS.has(card.action) || card.action === 'type_text';
  return (
    <>
      {d.windows_unknown === true && !(keyboard && d.window !== undefined) ? (
        // Wayland (docs/wayland.md#windows-and-coordinates): nothing to name, and nothing was kept off Overseer's own windows.
        // Keys are the exception when the accessibility tree names the active window: they go where the focus is.
        <div>
          <dt>{keyboard ? 'Into' : 'At'}</dt>
          <dd data-testid="screen-element">
            <span className="tag tag-warn">place unknown</span> this desktop tells no program where windows are or which has the keyboard focus: check the
            picture; it could land on any window, Overseer's own included
          </dd>
        </div>
      ) : (
        <>
          <div>
            <dt>{place?.focus === true ? 'Into' : 'At'}</dt>
            <dd data-testid="screen-element">
              <Place place={place} />
              {d.element?.password === true && <span className="tag tag-warn">password</span>}
            </dd>
          </div>
          {!(brief && place?.window !== undefined) && (
            <div>
              <dt>Window</dt>
              <dd data-testid="screen-window">{d.window !== undefined ? <WindowLine window={d.window} /> : <span className="muted">no window named</span>}</dd>
            </div>
          )}
        </>
      )}
      {!brief && (d.point !== undefined || d.physical !== undefined) && (
        <div>
          <dt>Point</dt>
          <dd className="small" data-testid="screen-point">
            {d.point !== undefined && `picture ${d.point.x},${d.point.y}`}
            {d.physical !== undefined && ` → screen ${d.physical.x},${d.physical.y}`}
            {(d.to !== undefined || d.to_physical !== undefined) &&
              ` · to ${d.to !== undefined ? `picture ${d.to.x},${d.to.y}` : ''}${d.to_physical !== undefined ? ` → screen ${d.to_physical.x},${d.to_physical.y}` : ''}`}
          </dd>
        </div>
      )}
      {card.action === 'scroll' && (
        <div>
          <dt>Scroll</dt>
          <dd data-testid="screen-scroll">{inputVerb('scroll', d)}</dd>
        </div>
      )}
      {card.action === 'type_text' && (
        <div>
          <dt>Text</dt>
          <dd data-testid="screen-text">
            {card.password ? (
              <span className="muted">(masked: password field has focus)</span>
            ) : (
              <div className="screen-text">
                <UntrustedText text={card.text ?? ''} block testId="screen-text-value" {...(mustReadToEnd(card) ? { endOf: card.approval_id } : {})} />
              </div>
            )}
          </dd>
        </div>
      )}
      {KEY_ACTIONS.has(card.action) && (
        <div>
          <dt>Keys</dt>
          <dd data-testid="screen-keys">
            <kbd>{d.keys !== undefined ? <UntrustedText text={d.keys} /> : '?'}</kbd>
            {card.action === 'hold_key' && d.duration_ms !== undefined && ` held for ${d.duration_ms} ms`}
            {card.password && <span className="muted"> (a password field has focus)</span>}
          </dd>
        </div>
      )}
    </>
  );
}
