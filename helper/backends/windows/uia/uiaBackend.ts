import { fail, type Action } from '../../../../protocol/index.js';
import type { Backend, DispatchResult, NativeNode, TreeSource, WindowHandle } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import { ComError, readFailure } from '../com/hresult.js';
import { using, type ComPtr } from '../com/com.js';
import { dispatchWin32 } from '../win32/win32Actions.js';
import { WindowsBackendBase, settle } from '../win32/windowsBackendBase.js';
import { windowPid, type Win32Node } from '../win32/win32Reader.js';
import { Win32TreeSource } from '../win32/win32TreeSource.js';
import { dispatchUia } from './uiaActions.js';
import type { UiaClient } from './uiaClient.js';
import type { UiaNode } from './uiaReader.js';
import { UiaTreeSource } from './uiaTreeSource.js';

/**
 * The UI Automation backend (`backend: "uia"`, and `auto` where UIA can be created): bulk reads
 * with one CacheRequest, actions through the semantic patterns only, windows and process identity
 * shared with the Win32 tier (HWND ids, pid + creation time, elevation refused). With `auto`, a
 * window that UIA shows nothing of is read through the Win32 tier, and the read says so.
 */
export class UiaBackend extends WindowsBackendBase implements Backend {
  readonly name = 'uia' as const;
  readonly capabilities = ['window_list', 'window_read', 'element_find', 'element_act', 'cancel'] as const;

  constructor(
    log: (line: string) => void,
    private readonly client: UiaClient,
    private readonly win32Fallback: boolean,
  ) {
    super(log, 'uia');
  }

  stop(): Promise<void> {
    this.client.release();
    return Promise.resolve();
  }

  open(window: WindowHandle, deadline: Deadline): Promise<TreeSource> {
    return settle(() => {
      const source = new UiaTreeSource(window, this.client);
      source.open(deadline);
      if (!this.win32Fallback || !source.empty || source.truncated.size > 0) return source;
      const classic = new Win32TreeSource(window, this.desktop.u);
      classic.open(deadline);
      if ((classic.node(window.rootKey)?.children?.length ?? 0) === 0) return source;
      classic.notes.push('fallback: UI Automation exposed nothing below this window; it was read through the Win32 tier');
      return classic;
    });
  }

  dispatch(source: TreeSource, node: NativeNode, action: Action, text: string | undefined, deadline: Deadline): Promise<DispatchResult> {
    const { u } = this.desktop;
    if (source instanceof Win32TreeSource) return settle(() => dispatchWin32(u, node as Win32Node, action, text, source.window.process.pid, deadline));
    if (!(source instanceof UiaTreeSource)) throw new Error('foreign tree source');
    return settle(() => {
      const pid = source.window.process.pid;
      const hwnd = Number(source.window.info.window);
      const own = (node as UiaNode).hwnd;
      // Fences right before dispatch: the window and the element's own HWND still exist and belong to the process observed.
      for (const h of own === undefined ? [hwnd] : [hwnd, own]) {
        if (!u.IsWindow(h) || windowPid(u, h) !== pid) throw fail('stale_element', `HWND ${h} is gone or now belongs to another process`);
      }
      this.client.setTransactionTimeout(deadline.remaining());
      let root: ComPtr | undefined;
      try {
        root = this.client.window(hwnd);
      } catch (error) {
        if (error instanceof ComError) throw fail(readFailure(error.hr), `the window's element could not be obtained: ${error.message}`);
        throw error;
      }
      if (root === undefined) throw fail('stale_window', `window ${hwnd} has no UI Automation element`);
      return using([root], () => {
        const uiaNode = node as UiaNode;
        let element: ComPtr | undefined;
        if (node.key === source.window.rootKey) element = root?.addRef();
        else {
          try {
            element = this.client.findByRuntimeId(root, uiaNode.runtimeId);
          } catch (error) {
            if (error instanceof ComError) throw fail(readFailure(error.hr), `the element could not be found again: ${error.message}`);
            throw error;
          }
        }
        if (element === undefined) throw fail('stale_element', `the ${node.role} "${node.name ?? ''}" is gone (no element with its RuntimeId)`);
        return using([element], () => dispatchUia(element, action, node.patterns, text));
      });
    });
  }
}
