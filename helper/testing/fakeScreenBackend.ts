// An in-memory ScreenBackend for unit tests of the screen service's logic (binding, masking,
// exclusion): a pixel buffer to paint, a window stack to arrange, and a log of what was dispatched.
// The real backends are tested against real servers (the screen contract, helper/screen/contract/).
import type { CapturedImage, Monitor, NativeWindow, ScreenBackend, ScreenCapabilities, ScreenRect } from '../screen/screenBackend.js';

export class FakeScreen implements ScreenBackend {
  readonly name = 'fake';
  readonly dispatched: string[] = [];
  windows_: NativeWindow[] = [];
  focus: string | undefined;
  monitors: Monitor[];
  readonly pixels: Buffer;
  pointer = { x: 0, y: 0 };
  /** Degradations capture and input name (`no_window_positions` makes it a Wayland-like desktop). */
  degradations: string[] = [];

  constructor(
    readonly width = 200,
    readonly height = 100,
  ) {
    this.pixels = Buffer.alloc(width * height * 4, 128);
    this.monitors = [{ name: 'fake', primary: true, x: 0, y: 0, width, height, scale: 1 }];
  }

  /** Paints a rectangle one grey level. */
  paint(r: ScreenRect, value: number): void {
    for (let y = r.y; y < r.y + r.height; y++) this.pixels.fill(value, (y * this.width + r.x) * 4, (y * this.width + r.x + r.width) * 4);
  }

  capabilities(): Promise<ScreenCapabilities> {
    const path = { available: true, path: 'fake:capture', degradations: [...this.degradations] };
    return Promise.resolve({
      session: 'x11',
      capture: path,
      input: { ...path, path: 'fake:input' },
      monitors: this.monitors,
      screen: { x: 0, y: 0, width: this.width, height: this.height },
    });
  }

  capture(region: ScreenRect = { x: 0, y: 0, width: this.width, height: this.height }): Promise<CapturedImage> {
    const data = Buffer.alloc(region.width * region.height * 4);
    for (let row = 0; row < region.height; row++)
      this.pixels.copy(
        data,
        row * region.width * 4,
        ((region.y + row) * this.width + region.x) * 4,
        ((region.y + row) * this.width + region.x + region.width) * 4,
      );
    return Promise.resolve({
      ...region,
      stride: region.width * 4,
      pixelFormat: 'bgrx',
      data,
      origin: { x: region.x, y: region.y },
      capturePath: 'fake:capture',
      captureMs: 0,
    });
  }

  private log(what: string): Promise<void> {
    this.dispatched.push(what);
    return Promise.resolve();
  }

  move = (x: number, y: number): Promise<void> => ((this.pointer = { x, y }), this.log(`move ${x},${y}`));
  button = (b: string, action: string): Promise<void> => this.log(`${action} ${b}`);
  click = (x: number, y: number, b: string, n: number): Promise<void> => this.log(`click ${x},${y} ${b} ×${n}`);
  scroll = (x: number, y: number, d: string, n: number): Promise<void> => this.log(`scroll ${x},${y} ${d} ×${n}`);
  typeText = (text: string): Promise<void> => this.log(`type ${text}`);
  key = (keys: readonly string[], action: string): Promise<void> => this.log(`key ${action} ${keys.join('+')}`);
  cursor = (): Promise<{ x: number; y: number }> => Promise.resolve(this.pointer);
  windows = (): Promise<NativeWindow[]> => Promise.resolve(this.windows_);
  focusedWindow = (): Promise<string | undefined> => Promise.resolve(this.focus);
  close = (): Promise<void> => Promise.resolve();
}
