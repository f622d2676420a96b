import type { ScreenWindow } from '../../../protocol/index.js';
import { UntrustedText } from '../shell/UntrustedText.js';

/** A window as people read it: `“Canvas” · canvasApp · pid 4242`, the title and application shown as untrusted text. */
export function WindowLine({ window: w }: { window: Pick<ScreenWindow, 'title' | 'app' | 'pid'> }) {
  return (
    <>
      “<UntrustedText text={w.title} />”
      {w.app !== '' && (
        <>
          {' · '}
          <UntrustedText text={w.app} />
        </>
      )}
      {w.pid !== undefined && ` · pid ${w.pid}`}
    </>
  );
}
