// The captures the helper keeps so that input can be bound to the pixels it was planned on: each
// screenshot's masked physical pixels, region, masks, monitors and (window-bound) window, under an
// id, owned by the agent whose call took it (docs/architecture.md#kept-captures). Budgeted per
// agent: an agent's new capture pushes out only its own oldest; past the global byte budget the
// agent holding the most gives up its oldest, and an agent within its fair share of the budget
// never loses a capture to another. A capture is found only by its owner: input bound to a capture
// that is gone, or that another agent took, is refused stale_screen alike.
import { randomBytes } from 'node:crypto';
import type { CapturedImage, NativeWindow, ScreenRect } from './screenBackend.js';

/** One kept capture. */
export interface KeptCapture {
  id: string;
  /** The agent whose call took it ('' for calls made for no agent). */
  owner: string;
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

/**
 * Most captures one agent keeps: its session keeps 8 screenshots (main/core/session/screenshots.ts),
 * and each input bound to no screenshot keeps the capture its card showed until it is dispatched.
 */
export const MAX_CAPTURES_PER_AGENT = 16;
/** Most bytes of pixels kept for all agents together (a 1920x1080 capture is 8 MB). */
export const MAX_CAPTURE_BYTES = 128 * 1024 * 1024;
/** Most captures kept for all agents together: many sessions' small window captures are bounded too. */
export const MAX_CAPTURES = 256;

export class CaptureStore {
  /** Oldest first, per owner. */
  private readonly owners = new Map<string, KeptCapture[]>();
  private readonly byId = new Map<string, KeptCapture>();
  private bytes = 0;

  constructor(
    private readonly maxPerAgent = MAX_CAPTURES_PER_AGENT,
    private readonly maxBytes = MAX_CAPTURE_BYTES,
    private readonly maxCount = MAX_CAPTURES,
  ) {}

  /** Keeps a capture of `owner` under a new id and evicts past the bounds; the new one itself is always kept. */
  add(owner: string, entry: Omit<KeptCapture, 'id' | 'owner'>): KeptCapture {
    const kept: KeptCapture = { ...entry, owner, id: `C${randomBytes(9).toString('base64url')}` };
    const mine = this.owners.get(owner) ?? [];
    this.owners.set(owner, mine);
    mine.push(kept);
    this.byId.set(kept.id, kept);
    this.bytes += kept.image.data.length;
    while (mine.length > this.maxPerAgent) this.evict(owner);
    for (const [over, measure] of [
      [() => this.bytes > this.maxBytes, bytesOf],
      [() => this.byId.size > this.maxCount, (list: readonly KeptCapture[]) => list.length],
    ] as const) {
      while (over()) {
        const victim = this.victim(owner, kept, measure, measure === bytesOf ? this.maxBytes : this.maxCount);
        if (victim === undefined) break;
        this.evict(victim);
      }
    }
    return kept;
  }

  /** The capture `id` if `owner` took it and it is still kept. */
  get(id: string, owner: string): KeptCapture | undefined {
    const kept = this.byId.get(id);
    return kept?.owner === owner ? kept : undefined;
  }

  get size(): number {
    return this.byId.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  /** Captures and bytes one owner holds. */
  held(owner: string): { count: number; bytes: number } {
    const mine = this.owners.get(owner) ?? [];
    return { count: mine.length, bytes: bytesOf(mine) };
  }

  /**
   * Whose oldest capture goes when a budget (bytes, or captures) is passed: the owner holding the
   * most of it, unless that is another agent within its fair share (the budget over the owners
   * holding any), which is never cut for someone else; then the adder's own oldest. Never the
   * capture just added.
   */
  private victim(adder: string, added: KeptCapture, measure: (list: readonly KeptCapture[]) => number, budget: number): string | undefined {
    const fair = budget / this.owners.size;
    let most: { owner: string; held: number } | undefined;
    for (const [owner, list] of this.owners) {
      if (list.length === 1 && list[0] === added) continue;
      const held = measure(list);
      if (most === undefined || held > most.held) most = { owner, held };
    }
    if (most === undefined) return undefined;
    if (most.owner === adder || most.held > fair) return most.owner;
    const own = this.owners.get(adder) ?? [];
    return own.length > 1 ? adder : undefined;
  }

  private evict(owner: string): void {
    const list = this.owners.get(owner);
    const old = list?.shift();
    if (list === undefined || old === undefined) return;
    this.byId.delete(old.id);
    this.bytes -= old.image.data.length;
    if (list.length === 0) this.owners.delete(owner);
  }
}

function bytesOf(list: readonly KeptCapture[]): number {
  return list.reduce((n, c) => n + c.image.data.length, 0);
}
