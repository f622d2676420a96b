// Capturing the root window: MIT-SHM GetImage (SHM 1.2 AttachFd) when a probe attach succeeds,
// else core GetImage. Only the common layout is accepted: a 24/32-bit TrueColor root with
// bits_per_pixel 32, masks ff0000/ff00/ff and LSBFirst image order, whose bytes are B,G,R,X.

import type { ShmExt, ShmSegment } from 'x11';
import { fail } from '../../../protocol/index.js';
import type { CapturedImage, ScreenRect } from '../screenBackend.js';
import { request, type X11Connection } from './x11Connection.js';

const Z_PIXMAP = 2;
const ALL_PLANES = 0xffffffff;
export const PATH_SHM = 'x11:MIT-SHM.GetImage';
export const PATH_CORE = 'x11:GetImage';

/** Why the root's pixels are not B,G,R,X, or null when they are. */
export function layoutProblem(conn: X11Connection): string | null {
  const { display } = conn;
  const screen = display.screen[0];
  if (screen === undefined) return 'no screen';
  const depth = screen.root_depth;
  const format = display.format[String(depth)];
  const visual = screen.depths[String(depth)]?.[String(screen.root_visual)];
  if (format?.bits_per_pixel !== 32) return `root depth ${depth} has ${format?.bits_per_pixel ?? '?'} bits per pixel (only 32 is handled)`;
  if (visual === undefined || visual.class !== 4) return 'the root visual is not TrueColor';
  if (visual.red_mask !== 0xff0000 || visual.green_mask !== 0xff00 || visual.blue_mask !== 0xff) return 'the root visual masks are not ff0000/ff00/ff';
  if (display.image_byte_order !== 0) return 'the server sends images MSBFirst';
  return null;
}

/** Captures regions of the root; owns the shared-memory segment (one, sized for the whole screen). */
export class RootCapturer {
  private segment: ShmSegment | null = null;
  private shmState: 'unknown' | 'usable' | 'unusable' = 'unknown';
  private readonly width: number;
  private readonly height: number;

  /** `shm` false: never try MIT-SHM. */
  constructor(
    private readonly conn: X11Connection,
    shm = true,
  ) {
    if (!shm) this.shmState = 'unusable';
    const screen = conn.display.screen[0];
    this.width = screen?.pixel_width ?? 0;
    this.height = screen?.pixel_height ?? 0;
  }

  /** Which path captures will take; probes MIT-SHM once (attach + round trip), falls back silently. */
  async path(): Promise<string> {
    if (this.shmState === 'unknown') {
      this.shmState = 'unusable';
      try {
        const shm = await request<ShmExt>((cb) => this.conn.X.require('shm', cb));
        if (await request<boolean>((cb) => shm.usable(cb))) {
          this.segment = await request<ShmSegment>((cb) => shm.createSegment(this.width * this.height * 4, cb));
          this.shmState = 'usable';
        }
      } catch {
        // no MIT-SHM, a remote display, or a container that blocks it: core GetImage
      }
    }
    return this.shmState === 'usable' ? PATH_SHM : PATH_CORE;
  }

  async capture(region?: ScreenRect): Promise<CapturedImage> {
    const problem = layoutProblem(this.conn);
    if (problem !== null) throw fail('capture_unavailable', `Cannot read this X screen's pixels: ${problem}.`, { reason: 'unsupported_pixel_layout' });
    const r = region ?? { x: 0, y: 0, width: this.width, height: this.height };
    const whole = [r.x, r.y, r.width, r.height].every(Number.isInteger) && r.width > 0 && r.height > 0;
    if (!whole || r.x < 0 || r.y < 0 || r.x + r.width > this.width || r.y + r.height > this.height) {
      throw fail('invalid_argument', `The region ${JSON.stringify(r)} is not a non-empty integer rectangle inside the screen ${this.width}x${this.height}.`, {
        region: r,
      });
    }
    const capturePath = await this.path();
    const started = performance.now();
    const bytes = r.width * r.height * 4;
    let data: Buffer;
    try {
      if (this.segment !== null) {
        const segment = this.segment;
        await request<{ size: number }>((cb) => segment.getImage(this.conn.root, r.x, r.y, r.width, r.height, ALL_PLANES, Z_PIXMAP, 0, cb));
        data = Buffer.from(segment.buffer.subarray(0, bytes)); // a copy: the segment is reused by the next capture
      } else {
        const reply = await request<{ data: Buffer }>((cb) => this.conn.X.GetImage(Z_PIXMAP, this.conn.root, r.x, r.y, r.width, r.height, ALL_PLANES, cb));
        data = reply.data;
      }
    } catch (error) {
      throw fail('capture_unavailable', `X GetImage failed: ${error instanceof Error ? error.message : String(error)}`, {
        reason: 'get_image_failed',
        path: capturePath,
      });
    }
    if (data.length < bytes) throw fail('capture_unavailable', `X GetImage answered ${data.length} bytes, expected ${bytes}.`, { reason: 'short_image' });
    return {
      width: r.width,
      height: r.height,
      stride: r.width * 4,
      pixelFormat: 'bgrx',
      data,
      origin: { x: r.x, y: r.y },
      capturePath,
      captureMs: performance.now() - started,
    };
  }

  close(): Promise<void> {
    const segment = this.segment;
    this.segment = null;
    if (segment === null) return Promise.resolve();
    return new Promise((resolve) => segment.detach(() => resolve()));
  }
}
