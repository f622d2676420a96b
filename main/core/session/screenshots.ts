// The screenshots one agent took (docs/tools.md#screen-tier): each S… id with its exact
// transform, the helper's capture it is bound to, and the picture a card shows when input is
// planned on it. Input names a screenshot (or means the latest); an id never issued to this agent is
// snapshot_unknown, one that fell out of the retained set snapshot_evicted.
import { randomBytes } from 'node:crypto';
import { fail, type ImageRect, type ScreenCaptureResult, type ScreenTransform, type WindowInfo } from '../../../protocol/index.js';

/** One screenshot as the session keeps it. */
export interface ScreenshotRecord {
  id: string;
  /** The helper's kept capture this screenshot's input is bound to. */
  capture: string;
  transform: ScreenTransform;
  width: number;
  height: number;
  masked: ImageRect[];
  window?: WindowInfo;
  /** data: URL of the image exactly as the agent got it, for the card of input planned on it. */
  picture: string;
  sha256: string;
  bytes: number;
}

/** Screenshots kept per agent: the pictures are the bulk (a PNG of a busy screen is about a megabyte). */
export const MAX_SCREENSHOTS = 8;

const MAX_ISSUED = 10_000;

export class ScreenshotStore {
  private readonly kept = new Map<string, ScreenshotRecord>();
  private readonly issued = new Set<string>();
  private newest: string | undefined;

  /** Keeps a capture under a new S… id, the latest from now on. */
  add(result: ScreenCaptureResult): ScreenshotRecord {
    const id = `S${randomBytes(9).toString('base64url')}`;
    const record: ScreenshotRecord = {
      id,
      capture: result.capture,
      transform: result.transform,
      width: result.image.width,
      height: result.image.height,
      masked: result.masked,
      picture: `data:${result.image.mime};base64,${result.image.data}`,
      sha256: result.sha256,
      bytes: result.bytes,
      ...(result.window !== undefined ? { window: result.window } : {}),
    };
    this.kept.set(id, record);
    this.issued.add(id);
    // Ids remembered only to tell evicted from never issued; bounded too.
    if (this.issued.size > MAX_ISSUED) this.issued.delete(this.issued.values().next().value as string);
    this.newest = id;
    for (const old of this.kept.keys()) {
      if (this.kept.size <= MAX_SCREENSHOTS) break;
      this.kept.delete(old);
    }
    return record;
  }

  /** The named screenshot, or the latest; throws when there is none to use. */
  resolve(id: string | undefined): ScreenshotRecord {
    if (id === undefined) {
      const latest = this.newest === undefined ? undefined : this.kept.get(this.newest);
      if (latest === undefined)
        throw fail('invalid_argument', 'no screenshot to plan on: take a screenshot first, or give raw: true for physical pixels', {
          issues: [{ path: 'screenshot', message: 'no screenshot taken yet' }],
        });
      return latest;
    }
    const record = this.kept.get(id);
    if (record !== undefined) return record;
    if (this.issued.has(id)) throw fail('snapshot_evicted', `screenshot ${id} fell out of the ${MAX_SCREENSHOTS} kept; take a new one`, { screenshot: id });
    throw fail('snapshot_unknown', `screenshot ${id} was never taken by this agent`, { screenshot: id });
  }

  get latest(): ScreenshotRecord | undefined {
    return this.newest === undefined ? undefined : this.kept.get(this.newest);
  }
}
