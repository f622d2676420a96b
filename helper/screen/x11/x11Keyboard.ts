// Keyboard input over XTEST. A keysym found in the server's keymap is typed with its keycode (with
// Shift_L for the second level). Any other character gets a spare keycode (a row of NoSymbol)
// remapped with ChangeKeyboardMapping to its keysym. A client translates a key event with the
// keymap it holds when it gets to the event, and some (Firefox) fetch the server's keymap anew
// after a MappingNotify: a row changed again before a busy client reached the key typed with it
// made that character vanish (measured: Firefox stopped for 300 ms lost every "’"). So a remapped
// row stays mapped while typing goes on and is set back to NoSymbol only once the keyboard has
// been idle IDLE_RESTORE_MS, and on close; a keysym typed again reuses its row; a row is remapped
// to another keysym only when every spare is taken, the least recently pressed first, and
// REUSE_SETTLE_MS after its last press at the soonest.

import { setTimeout as sleep } from 'node:timers/promises';
import type { XTestExt } from 'x11';
import { fail } from '../../../protocol/index.js';
import { charKeysym, SHIFT_L } from '../keysyms.js';
import { request, sync, type X11Connection } from './x11Connection.js';

/** How long clients get to process a key before its keycode is remapped to another keysym (only when every spare is taken). */
export const REUSE_SETTLE_MS = 250;
/** How long the keyboard stays idle before its remapped rows are set back to NoSymbol. */
export const IDLE_RESTORE_MS = 5000;
/**
 * How long clients get to reload their keymap after a spare keycode was mapped, before it is
 * pressed: Firefox and Chromium sometimes still held the old (empty) row and dropped the character
 * (measured: about 1 in 5 forms lost a typographic apostrophe without it).
 */
export const MAP_SETTLE_MS = 40;
/** Modifier mask bits that change what a key types: Shift, Lock, Control, Mod1 (Alt), Mod4 (Super), Mod5. NumLock (Mod2) does not. */
const TEXT_CHANGING_MODIFIERS = 0x01 | 0x02 | 0x04 | 0x08 | 0x40 | 0x80;

interface KeyLocation {
  keycode: number;
  shift: boolean;
}

export class X11Keyboard {
  private rows: number[][] = [];
  private perKeycode = 0;
  private spares: number[] = [];
  /** keysym -> spare keycode currently mapped to it. */
  private readonly mapped = new Map<number, number>();
  /** spare keycode -> time of its last press (performance.now()). */
  private readonly lastPress = new Map<number, number>();
  private readonly held = new Set<number>();
  /** Typing or key presses under way: rows are never restored meanwhile. */
  private busy = 0;
  private restoreTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly conn: X11Connection,
    private readonly xtest: XTestExt,
  ) {}

  async load(): Promise<void> {
    const { min_keycode: min, max_keycode: max } = this.conn.display;
    this.rows = await request<number[][]>((cb) => this.conn.X.GetKeyboardMapping(min, max - min + 1, cb));
    this.perKeycode = this.rows[0]?.length ?? 0;
    this.spares = [];
    this.rows.forEach((row, i) => {
      if (row.every((ks) => ks === 0)) this.spares.push(min + i);
    });
  }

  spareCount(): number {
    return this.spares.length;
  }

  /** Type every code point of `text` once, exactly. */
  async typeText(text: string): Promise<void> {
    // A lone surrogate is no character: refused before anything is typed (as on Windows).
    for (const ch of text) {
      const cp = ch.codePointAt(0) ?? 0;
      if (cp >= 0xd800 && cp <= 0xdfff)
        throw fail('invalid_argument', `The text has a lone UTF-16 surrogate 0x${cp.toString(16)}, which is no character.`, { unit: cp });
    }
    await this.refuseHeldModifiers();
    this.busy++;
    try {
      for (const ch of text) {
        const cp = ch.codePointAt(0) ?? 0;
        const keysym = charKeysym(cp);
        const at = this.find(keysym) ?? (await this.mapSpare(keysym));
        await this.tap(at);
      }
      await sync(this.conn.X);
    } finally {
      this.busy--;
      this.scheduleRestore();
    }
  }

  /** Press keysyms in order and release them in reverse (tap), or only press / only release. */
  async keys(keysyms: readonly number[], action: 'tap' | 'down' | 'up'): Promise<void> {
    this.busy++;
    try {
      const locations: KeyLocation[] = [];
      for (const ks of keysyms) locations.push(this.find(ks) ?? (await this.mapSpare(ks)));
      const codes: number[] = [];
      const shift = this.find(SHIFT_L);
      for (const at of locations) {
        if (at.shift && shift !== null && !codes.includes(shift.keycode)) codes.push(shift.keycode);
        codes.push(at.keycode);
      }
      if (action !== 'up') for (const code of codes) this.press(code, true);
      if (action !== 'down') for (const code of [...codes].reverse()) this.press(code, false);
      await sync(this.conn.X);
    } finally {
      this.busy--;
      this.scheduleRestore();
    }
  }

  /** Release every key this keyboard holds, and put every remapped row back. */
  async close(): Promise<void> {
    if (this.restoreTimer !== null) clearTimeout(this.restoreTimer);
    this.restoreTimer = null;
    for (const code of [...this.held]) this.press(code, false);
    await sync(this.conn.X);
    if (this.mapped.size === 0 && this.lastPress.size === 0) return;
    await sleep(REUSE_SETTLE_MS);
    this.restoreSpares();
    await sync(this.conn.X);
  }

  private find(keysym: number): KeyLocation | null {
    const min = this.conn.display.min_keycode;
    const spare = this.mapped.get(keysym);
    if (spare !== undefined) return { keycode: spare, shift: false };
    for (const level of [0, 1]) {
      const i = this.rows.findIndex((row, idx) => row[level] === keysym && !this.spares.includes(min + idx));
      if (i >= 0) return { keycode: min + i, shift: level === 1 };
    }
    return null;
  }

  private async mapSpare(keysym: number): Promise<KeyLocation> {
    const taken = new Set(this.mapped.values());
    const free = this.spares.find((code) => !taken.has(code) && !this.held.has(code));
    const keycode = free ?? this.leastRecentlyPressed();
    if (keycode === undefined) {
      throw fail('input_unavailable', `The keymap has no spare keycode to type keysym 0x${keysym.toString(16)}.`, { reason: 'no_spare_keycode' });
    }
    const pressedAt = this.lastPress.get(keycode);
    if (pressedAt !== undefined) {
      await sync(this.conn.X);
      const wait = pressedAt + REUSE_SETTLE_MS - performance.now();
      if (wait > 0) await sleep(wait);
    }
    for (const [ks, code] of this.mapped) if (code === keycode) this.mapped.delete(ks);
    const row = new Array<number>(this.perKeycode).fill(0);
    row[0] = keysym;
    if (this.perKeycode > 1) row[1] = keysym;
    this.conn.X.ChangeKeyboardMapping(keycode, this.perKeycode, row);
    await sync(this.conn.X);
    await sleep(MAP_SETTLE_MS);
    this.mapped.set(keysym, keycode);
    return { keycode, shift: false };
  }

  /** The mapped spare pressed longest ago (one never pressed first) that no key holds down. */
  private leastRecentlyPressed(): number | undefined {
    let best: number | undefined;
    let bestAt = Infinity;
    for (const code of this.mapped.values()) {
      if (this.held.has(code)) continue;
      const at = this.lastPress.get(code) ?? -Infinity;
      if (at < bestAt) [best, bestAt] = [code, at];
    }
    return best;
  }

  /** Restore the remapped rows once the keyboard has been idle IDLE_RESTORE_MS (again from the last use). */
  private scheduleRestore(): void {
    if (this.restoreTimer !== null) clearTimeout(this.restoreTimer);
    this.restoreTimer = null;
    if (this.mapped.size === 0 && this.lastPress.size === 0) return;
    this.restoreTimer = setTimeout(() => {
      this.restoreTimer = null;
      if (this.busy > 0 || this.held.size > 0) return this.scheduleRestore();
      this.restoreSpares();
      void sync(this.conn.X).catch(() => undefined);
    }, IDLE_RESTORE_MS);
    this.restoreTimer.unref();
  }

  /** Set every remapped row back to NoSymbol (the requests are sent at once, before any other). */
  private restoreSpares(): void {
    const used = new Set<number>([...this.lastPress.keys(), ...this.mapped.values()]);
    for (const keycode of used) this.conn.X.ChangeKeyboardMapping(keycode, this.perKeycode, new Array<number>(this.perKeycode).fill(0));
    this.mapped.clear();
    this.lastPress.clear();
  }

  private tap(at: KeyLocation): Promise<void> {
    const shift = at.shift ? this.find(SHIFT_L) : null;
    if (at.shift && shift === null) throw fail('input_unavailable', 'The keymap has no Shift_L key for a second-level keysym.', { reason: 'no_shift_key' });
    if (shift !== null) this.press(shift.keycode, true);
    this.press(at.keycode, true);
    this.press(at.keycode, false);
    if (shift !== null) this.press(shift.keycode, false);
    return Promise.resolve();
  }

  private press(keycode: number, down: boolean): void {
    const { xtest } = this;
    xtest.FakeInput(down ? xtest.KeyPress : xtest.KeyRelease, keycode, 0, this.conn.root, 0, 0);
    if (down) this.held.add(keycode);
    else this.held.delete(keycode);
    if (this.spares.includes(keycode) && !down) this.lastPress.set(keycode, performance.now());
  }

  private async refuseHeldModifiers(): Promise<void> {
    const pointer = await request<{ keyMask: number }>((cb) => this.conn.X.QueryPointer(this.conn.root, cb));
    const held = pointer.keyMask & TEXT_CHANGING_MODIFIERS;
    if (held !== 0) {
      throw fail('input_unavailable', `A modifier is held (mask 0x${held.toString(16)}), so typed text would not come out exactly; nothing was typed.`, {
        reason: 'modifier_held',
        mask: held,
      });
    }
  }
}
