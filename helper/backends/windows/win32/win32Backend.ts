import type { Action } from '../../../../protocol/index.js';
import type { Backend, DispatchResult, NativeNode, TreeSource, WindowHandle } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import { dispatchWin32 } from './win32Actions.js';
import type { Win32Node } from './win32Reader.js';
import { Win32TreeSource } from './win32TreeSource.js';
import { WindowsBackendBase, settle } from './windowsBackendBase.js';

/**
 * The plain Win32 tier (`backend: "win32"`): classic child windows read with EnumChildWindows,
 * class, WM_GETTEXT and styles; actions only through documented control messages, each read
 * back. Used directly, or by `auto` when UI Automation is unavailable.
 */
export class Win32Backend extends WindowsBackendBase implements Backend {
  readonly name = 'win32' as const;
  readonly capabilities = ['window_list', 'window_read', 'element_find', 'element_act', 'cancel'] as const;
  readonly fallbackReason?: string;

  constructor(log: (line: string) => void, fallbackReason?: string) {
    super(log, 'win32');
    if (fallbackReason !== undefined) this.fallbackReason = fallbackReason;
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  open(window: WindowHandle, deadline: Deadline): Promise<TreeSource> {
    return settle(() => {
      const source = new Win32TreeSource(window, this.desktop.u);
      source.open(deadline);
      return source;
    });
  }

  dispatch(source: TreeSource, node: NativeNode, action: Action, text: string | undefined, deadline: Deadline): Promise<DispatchResult> {
    if (!(source instanceof Win32TreeSource)) throw new Error('foreign tree source');
    return settle(() => dispatchWin32(this.desktop.u, node as Win32Node, action, text, source.window.process.pid, deadline));
  }
}
