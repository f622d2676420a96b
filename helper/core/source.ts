import type { Truncation } from '../../protocol/index.js';
import type { Backend, DetailScope, NativeNode, TreeSource, WindowHandle } from './backend.js';
import type { Deadline } from './deadline.js';

/**
 * A tree source whose lifecycle is enforced: `finish()` exactly once, and nothing read from it
 * afterwards. A source that met failures drops its application's cache on finish, so a read after
 * it would mix a dropped snapshot into an answer; both misuses are bugs and throw.
 */
class FinishOnceSource implements TreeSource {
  private finished = false;

  constructor(private readonly inner: TreeSource) {}

  /** The source the backend made, for handing back to it (dispatch); refused once finished. */
  native(): TreeSource {
    return this.live('dispatch');
  }

  private live(what: string): TreeSource {
    if (this.finished) throw new Error(`[helper] tree source of window ${this.inner.window.info.window} used (${what}) after finish()`);
    return this.inner;
  }

  /** The window handle stays readable: it names what was read, not the read itself. */
  get window(): WindowHandle {
    return this.inner.window;
  }

  get truncated(): Set<Truncation> {
    return this.live('truncated').truncated;
  }

  get notes(): string[] {
    return this.live('notes').notes;
  }

  node(key: string): NativeNode | undefined {
    return this.live('node').node(key);
  }

  expand(keys: readonly string[], deadline: Deadline, limit: number): Promise<void> {
    return this.live('expand').expand(keys, deadline, limit);
  }

  details(keys: readonly string[], deadline: Deadline, scope?: DetailScope): Promise<void> {
    return this.live('details').details(keys, deadline, scope);
  }

  fetch(key: string, deadline: Deadline): Promise<NativeNode | undefined> {
    return this.live('fetch').fetch(key, deadline);
  }

  isDetailed(key: string): boolean {
    return this.live('isDetailed').isDetailed(key);
  }

  finish(): void {
    const inner = this.live('finish');
    this.finished = true;
    inner.finish();
  }
}

/**
 * Opens a tree source over the window through the backend. The core opens every source here, so
 * whoever opens one owns it: finish it exactly once (try/finally) and read nothing from it after.
 */
export async function openSource(backend: Backend, window: WindowHandle, deadline: Deadline): Promise<TreeSource> {
  return new FinishOnceSource(await backend.open(window, deadline));
}

/** The backend's own source behind one openSource() gave, for Backend.dispatch (backends check what they made). */
export function backendSource(source: TreeSource): TreeSource {
  return source instanceof FinishOnceSource ? source.native() : source;
}
