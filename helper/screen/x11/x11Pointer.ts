// Pointer input over XTEST FakeInput: absolute motion in root coordinates (every monitor), buttons
// 1–3, and wheel detents as buttons 4–7. Every call ends with a round trip, so when it resolves the
// server has processed the input.

import type { XTestExt } from 'x11';
import { fail } from '../../../protocol/index.js';
import type { MouseButton, ScrollDirection } from '../screenBackend.js';
import { sync, type X11Connection } from './x11Connection.js';

const BUTTONS: Record<MouseButton, number> = { left: 1, middle: 2, right: 3 };
const WHEEL: Record<ScrollDirection, number> = { up: 4, down: 5, left: 6, right: 7 };

export class X11Pointer {
  private readonly held = new Set<number>();

  constructor(
    private readonly conn: X11Connection,
    private readonly xtest: XTestExt,
    private readonly bounds: () => { width: number; height: number },
  ) {}

  async move(x: number, y: number): Promise<void> {
    this.motion(x, y);
    await sync(this.conn.X);
  }

  async button(button: MouseButton, down: boolean): Promise<void> {
    this.fakeButton(buttonNumber(button), down);
    await sync(this.conn.X);
  }

  async click(x: number, y: number, button: MouseButton, count: number): Promise<void> {
    if (!Number.isInteger(count) || count < 1 || count > 3) throw fail('invalid_argument', `count must be 1, 2 or 3, not ${count}.`, { count });
    const b = buttonNumber(button);
    this.motion(x, y);
    for (let i = 0; i < count; i++) {
      this.fakeButton(b, true);
      this.fakeButton(b, false);
    }
    await sync(this.conn.X);
  }

  async scroll(x: number, y: number, direction: ScrollDirection, detents: number): Promise<void> {
    if (!Number.isInteger(detents) || detents < 1 || detents > 100)
      throw fail('invalid_argument', `detents must be an integer 1..100, not ${detents}.`, { detents });
    const b = WHEEL[direction];
    this.motion(x, y);
    for (let i = 0; i < detents; i++) {
      this.fakeButton(b, true);
      this.fakeButton(b, false);
    }
    await sync(this.conn.X);
  }

  /** Release every button this pointer holds. */
  async close(): Promise<void> {
    for (const b of [...this.held]) this.fakeButton(b, false);
    await sync(this.conn.X);
  }

  private motion(x: number, y: number): void {
    const { width, height } = this.bounds();
    if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= width || y >= height) {
      throw fail('invalid_argument', `The point ${x},${y} is not an integer pixel on the screen ${width}x${height}.`, { x, y });
    }
    this.xtest.FakeInput(this.xtest.MotionNotify, 0 /* absolute */, 0, this.conn.root, x, y);
  }

  private fakeButton(b: number, down: boolean): void {
    this.xtest.FakeInput(down ? this.xtest.ButtonPress : this.xtest.ButtonRelease, b, 0, this.conn.root, 0, 0);
    if (down) this.held.add(b);
    else this.held.delete(b);
  }
}

function buttonNumber(button: MouseButton): number {
  const b = BUTTONS[button] as number | undefined;
  if (b === undefined) throw fail('invalid_argument', `Unknown button ${JSON.stringify(button)}: left, middle or right.`, { button });
  return b;
}
