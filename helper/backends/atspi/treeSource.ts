import type { DetailScope, TreeSource, WindowHandle } from '../../core/backend.js';
import type { Deadline } from '../../core/deadline.js';
import type { AppCache } from './appCache.js';
import type { AtspiNode } from './atspiNode.js';
import { Problems } from './readSupport.js';
import type { Truncation } from '../../../protocol/index.js';

/** The note of an application read by walking because its bulk answer was empty (docs/compatibility.md#qt-5-and-qt-6). */
export function walkedNote(app: string, toolkit: string): string {
  return `walked: ${app} (${toolkit}) answers Cache.GetItems with nothing, so its tree is read by walking it`;
}

/** A window's view of its application's cache, walked by the core under budgets. */
export class AtspiTreeSource implements TreeSource {
  readonly problems = new Problems();
  private readonly detailedHere = new Set<string>();
  /** The node map this read works on, pinned when it opened, so a concurrent reload never mixes snapshots. */
  private nodes: Map<string, AtspiNode>;

  constructor(
    readonly window: WindowHandle,
    readonly cache: AppCache,
  ) {
    this.nodes = cache.nodes;
  }

  /** Rectangles were asked for by this read (a `full` detail pass). */
  private wantRects = false;

  /** Loads the application's cache (see AppCache.load for `proof`) and pins the result; a failure is noted, not thrown. */
  async open(deadline: Deadline, proof?: number): Promise<void> {
    try {
      await this.cache.load(deadline, proof);
    } catch (error) {
      this.problems.note(error, `application ${this.window.info.app} (pid ${this.window.process.pid})`);
    }
    this.nodes = this.cache.nodes;
    this.cache.forgetParts(this.nodes);
    if (this.cache.bulkEmpty) this.problems.notes.push(walkedNote(this.window.info.app, this.cache.toolkit.label));
    // docs/compatibility.md#chromium-and-electron
    const page = this.cache.toolkit.kind === 'chromium' ? this.pageState() : 'shown';
    if (page === 'none')
      this.problems.notes.push(
        'no_web_content: this Chromium or Electron window shows no web content to accessibility clients: it must be started with --force-renderer-accessibility (ask the person), or use the screen tier',
      );
    if (page === 'empty')
      this.problems.notes.push(
        'empty_web_content: the page shows no content to accessibility clients (Chromium drops the tree of a page it hides); bring its window to the front (ask the person, or the screen tier) and read again',
      );
  }

  /** Whether the application shows a document (a web page) with content, an empty one, or none. */
  private pageState(): 'shown' | 'empty' | 'none' {
    let documents = 0;
    for (const node of this.nodes.values()) {
      if (node.role !== 'document') continue;
      if (node.childCount !== 0) return 'shown';
      documents++;
    }
    return documents === 0 ? 'none' : 'empty';
  }

  get truncated(): Set<Truncation> {
    return this.problems.truncated;
  }

  get notes(): string[] {
    return this.problems.notes;
  }

  node(key: string): AtspiNode | undefined {
    return this.nodes.get(key);
  }

  expand(keys: readonly string[], deadline: Deadline, limit: number): Promise<void> {
    return this.cache.expand(this.nodes, keys, deadline, limit, this.problems);
  }

  finish(): void {
    if (this.problems.failures > 0) this.cache.invalidate();
  }

  async details(keys: readonly string[], deadline: Deadline, scope: DetailScope = 'full'): Promise<void> {
    const answer = scope === 'full' || scope === 'answer';
    if (scope === 'full') this.wantRects = true;
    await this.cache.details(this.nodes, keys, deadline, this.problems, scope, answer ? this.detailedHere : undefined);
  }

  /** An event may mark a node stale after this read detailed it; the read still holds what it read. */
  isDetailed(key: string): boolean {
    const node = this.nodes.get(key);
    return this.detailedHere.has(key) || (node?.detailed === true && (!this.wantRects || node.rectRead === true));
  }

  /** Reads an object directly by its path (AT-SPI paths are addressable), with its parent. */
  async fetch(key: string, deadline: Deadline): Promise<AtspiNode | undefined> {
    return this.cache.fetch(this.nodes, key, deadline).catch(() => undefined);
  }
}
