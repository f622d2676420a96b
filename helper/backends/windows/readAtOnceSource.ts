import type { Truncation } from '../../../protocol/index.js';
import type { NativeNode, TreeSource, WindowHandle } from '../../core/backend.js';
import type { Deadline } from '../../core/deadline.js';

/**
 * A tree source whose open() reads the window in one go (UIA's bulk cache, the Win32 child
 * windows): every node it holds is already detailed, and nothing needs releasing afterwards.
 * Subclasses read in open() and may read more on expand/fetch.
 */
export abstract class ReadAtOnceSource<N extends NativeNode> implements TreeSource {
  readonly truncated = new Set<Truncation>();
  readonly notes: string[] = [];
  protected nodes = new Map<string, N>();

  constructor(readonly window: WindowHandle) {}

  abstract open(deadline: Deadline): void;

  node(key: string): N | undefined {
    return this.nodes.get(key);
  }

  expand(_keys: readonly string[], _deadline: Deadline, _limit: number): Promise<void> {
    return Promise.resolve();
  }

  details(): Promise<void> {
    return Promise.resolve();
  }

  fetch(key: string, _deadline: Deadline): Promise<N | undefined> {
    return Promise.resolve(this.nodes.get(key));
  }

  isDetailed(key: string): boolean {
    return this.nodes.has(key);
  }

  finish(): void {}
}
