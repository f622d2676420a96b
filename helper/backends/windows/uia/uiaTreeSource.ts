import { fail } from '../../../../protocol/index.js';
import type { WindowHandle } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import { ComError, describeHresult, readFailure } from '../com/hresult.js';
import { ReadAtOnceSource } from '../readAtOnceSource.js';
import type { UiaClient } from './uiaClient.js';
import { readCachedTree, type UiaNode } from './uiaReader.js';

/**
 * One bulk read of a window: ElementFromHandleBuildCache with one CacheRequest (control view,
 * TreeScope_Subtree, every rendered property), bounded by the read's deadline through UIA's
 * transaction timeout; then the cached tree becomes nodes and every COM reference is released.
 */
export class UiaTreeSource extends ReadAtOnceSource<UiaNode> {
  constructor(
    window: WindowHandle,
    private readonly client: UiaClient,
  ) {
    super(window);
  }

  open(deadline: Deadline): void {
    const hwnd = Number(this.window.info.window);
    this.client.setTransactionTimeout(deadline.remaining());
    let root;
    try {
      root = this.client.windowBuildCache(hwnd);
    } catch (error) {
      if (!(error instanceof ComError)) throw error;
      const code = readFailure(error.hr);
      if (code === 'stale_element') throw fail('window_gone', `window ${hwnd} is gone (${describeHresult(error.hr)})`, { window: String(hwnd) });
      if (code === 'target_elevated') throw fail('target_elevated', `window ${hwnd} runs with higher privileges than the helper`, { window: String(hwnd) });
      this.truncated.add(code === 'timeout' ? 'timeout' : 'provider_error');
      this.notes.push(
        `${code === 'timeout' ? 'timeout' : 'provider_error'}: ${this.window.info.app} (pid ${this.window.process.pid}) did not answer the bulk read: ${describeHresult(error.hr)}`,
      );
      return;
    }
    if (root === undefined) return;
    try {
      this.nodes = readCachedTree(root, this.window.rootKey, deadline, this);
    } finally {
      root.release();
    }
  }

  /** True when UIA showed nothing below the window itself (the auto backend then reads it through Win32). */
  get empty(): boolean {
    const root = this.nodes.get(this.window.rootKey);
    return root === undefined || (root.children?.length ?? 0) === 0;
  }
}
