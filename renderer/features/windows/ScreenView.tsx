import { useState } from 'react';
import { elementLabel } from '../../model/cardSubject.js';
import { rectOnPicture } from '../../model/screenMarks.js';
import { captureFailureText } from '../../model/screenCapture.js';
import { selectChosenWindow, selectLive, selectScreen, selectSelectedNode, selectWindows } from '../../store/selectors.js';
import { useApp } from '../../store/useApp.js';
import { MaskedRects } from '../screen/MaskedRects.js';
import { ScreenPicture } from '../screen/ScreenPicture.js';
import { clock } from '../shell/time.js';
import { ElementOutline } from './ElementOutline.js';
import { useScreenCapture } from './useScreenCapture.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ViewedDesktop } from './ConnectionSwitcher.js';

/**
 * What the chosen window looks like now, captured and masked as an agent's screenshot is, with the
 * element selected in the tree outlined on it. It captures again after each action that reached an
 * application, and on Refresh; a capture that fails says why instead of showing an old picture as new.
 */
export function ScreenView() {
  const chosen = useApp(selectChosenWindow);
  const windows = useApp(selectWindows);
  const screen = useApp(selectScreen);
  const node = useApp(selectSelectedNode);
  const live = useApp(selectLive);
  const [whole, setWhole] = useState(false);
  const target = whole ? undefined : chosen;
  const refresh = useScreenCapture(target);
  const shown = screen.shown !== undefined && screen.shown.window === target ? screen.shown.view : undefined;
  const title = target === undefined ? 'the whole screen' : `“${windows.find((w) => w.window === target)?.title ?? target}”`;
  const rect = node?.element.rect;
  const outline = shown !== undefined && rect !== undefined ? rectOnPicture(rect, shown.transform, shown) : undefined;
  const label = node !== undefined ? elementLabel(node.element) : undefined;
  return (
    <section
      className="screen-view detail"
      aria-label="Screen"
      data-testid="screen-view"
      data-transform={shown !== undefined ? JSON.stringify(shown.transform) : undefined}
    >
      <div className="screen-view-head">
        <span className="small">
          <UntrustedText text={title} />
          {shown !== undefined && <span className="muted"> · {clock(shown.captured_at)}</span>}
        </span>
        <ViewedDesktop />
        <label className="small">
          <input type="checkbox" data-testid="screen-whole" checked={whole} onChange={(e) => setWhole(e.target.checked)} /> whole screen
        </label>
        <button type="button" data-testid="screen-refresh" disabled={!live || screen.capturing} onClick={refresh}>
          {screen.capturing ? 'Capturing…' : 'Refresh'}
        </button>
      </div>
      {screen.error !== undefined && (
        <p className="screen-error" role="status" data-testid="screen-error" data-code={screen.error.code}>
          {captureFailureText(screen.error)}
          {shown !== undefined && ` (the picture below is from ${clock(shown.captured_at)})`}
        </p>
      )}
      {shown !== undefined ? (
        <ScreenPicture
          src={shown.picture}
          width={shown.width}
          height={shown.height}
          alt={`${title} as captured at ${clock(shown.captured_at)}${outline !== undefined && label !== undefined ? `, with ${label} outlined` : ''}`}
          testId="screen-view-picture"
        >
          <MaskedRects rects={shown.masked} size={shown} />
          {outline !== undefined && <ElementOutline rect={outline} />}
        </ScreenPicture>
      ) : (
        screen.error === undefined && <p className="muted">{screen.capturing ? 'Capturing…' : 'No picture yet.'}</p>
      )}
      <p className="muted small" data-testid="screen-outline-note">
        <OutlineNote
          text={
            node === undefined
              ? 'Select an element in the tree to outline it here.'
              : rect === undefined
                ? `${label} has no rectangle to outline.`
                : shown === undefined
                  ? ''
                  : outline === undefined
                    ? `${label} is not on this picture.`
                    : `Outlined: ${label}${outline.cut ? ' (partly off the picture)' : ''}.`
          }
        />
      </p>
    </section>
  );
}

/** The outline note names the element (the application's words), so it is shown as untrusted text. */
function OutlineNote({ text }: { text: string }) {
  return text === '' ? null : <UntrustedText text={text} />;
}
