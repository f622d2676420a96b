// The captures the helper keeps so that input can be bound to the pixels it was planned on: each
// screenshot's masked physical pixels, region, masks, monitors and (window-bound) window, under an
// id. Bounded by count and bytes; the oldest go first, and input bound to a capture that is gone is
// refused stale_screen.
import { randomBytes } from 'node:crypto';
import type { CapturedImage, NativeWindow, ScreenRect } from './screenBackend.js';

/** One kept capture. */
export interface KeptCapture {
  id: string;
  /** Masked physical pixels. */
  image: CapturedImage;
  region: ScreenRect;
  /** Physical rectangles painted black (the supervisor, excluded apps, what covers a bound window). */
  masks: ScreenRect[];
  /** The monitor layout when captured, as compared later. */
  monitors: string;
  /** For a window-bound capture: the window and where it was. */
  window?: Pick<NativeWindow, 'handle' | 'rect'>;
  /** Captured through the window's own path (its pixels even where covered): checked again the same way. */
  viaWindow?: boolean;
  at: number;
}

/** Most captures kept, and most bytes of pixels. */
export const MAX_CAPTURES = 16;
export const MAX_CAPTURE_BYTES = 128 * 1024 * 1024;

export class CaptureStore {
  private readonly kept = new Map<string, KeptCapture>();
  private bytes = 0;

  constructor(
    private readonly maxCount = MAX_CAPTURES,
    private readonly maxBytes = MAX_CAPTURE_BYTES,
  ) {}

  /** Keeps a capture under a new id and evicts the oldest past the bounds. */
  add(entry: Omit<KeptCapture, 'id'>): KeptCapture {
    const kept: KeptCapture = { ...entry, id: `C${randomBytes(9).toString('base64url')}` };
    this.kept.set(kept.id, kept);
    this.bytes += kept.image.data.length;
    for (const [id, old] of this.kept) {
      if (this.kept.size <= this.maxCount && this.bytes <= this.maxBytes) break;
      if (id === kept.id) break;
      this.kept.delete(id);
      this.bytes -= old.image.data.length;
    }
    return kept;
  }

  get(id: string): KeptCapture | undefined {
    return this.kept.get(id);
  }

  get size(): number {
    return this.kept.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }
}
