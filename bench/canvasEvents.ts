// The canvas app's event log (desktop/apps/canvasApp.py prints one JSON line per event on stdout,
// which the private desktop writes to <dir>/logs/app<N>-python3.out.log), read back so the screen
// bench can confirm that a click it timed reached the app, at the pixel it was aimed at.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** One line of the canvas app's log. */
export interface CanvasEvent {
  /** ready, press, release, scroll, key, keyrelease or paste. */
  ev: string;
  /** What a key typed, or what a paste inserted. */
  text?: string;
  /** The X button of a press or release. */
  button?: number;
  /** Root coordinates of the pointer. */
  x?: number;
  y?: number;
}

/** The `*.out.log` files in a desktop's logs folder now. */
export function outLogs(logsDir: string): Set<string> {
  return new Set(readdirSync(logsDir).filter((f) => f.endsWith('.out.log')));
}

/** Reads the log as it grows; `cursor` marks the events earlier steps consumed. */
export class CanvasLog {
  private cursor = 0;

  constructor(private readonly file: string) {}

  /** The stdout log that appeared in `logsDir` since `before` was taken (the app just launched). */
  static since(logsDir: string, before: Set<string>): CanvasLog {
    const fresh = [...outLogs(logsDir)].filter((f) => !before.has(f));
    if (fresh.length !== 1) throw new Error(`expected one new log in ${logsDir}, found ${fresh.join(', ') || 'none'}`);
    return new CanvasLog(path.join(logsDir, fresh[0] ?? ''));
  }

  private all(): CanvasEvent[] {
    let text = '';
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as CanvasEvent);
  }

  /**
   * Waits (polling every `pollMs`) until the events after the cursor satisfy `done`; returns them and
   * moves the cursor past them, or returns null after `timeoutMs` (the cursor then skips what came).
   */
  async until(done: (events: CanvasEvent[]) => boolean, timeoutMs = 5000, pollMs = 2): Promise<CanvasEvent[] | null> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const fresh = this.all().slice(this.cursor);
      if (done(fresh) || performance.now() > deadline) {
        this.cursor += fresh.length;
        return done(fresh) ? fresh : null;
      }
      await sleep(pollMs);
    }
  }
}

/** True when `events` hold a press and a release of button 1 at exactly x,y (what a left click must produce). */
export function leftClickAt(events: readonly CanvasEvent[], x: number, y: number): boolean {
  const at = (kind: string): boolean => events.some((e) => e.ev === kind && e.button === 1 && e.x === x && e.y === y);
  return at('press') && at('release');
}
