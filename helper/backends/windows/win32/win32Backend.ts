import { fail, OverseerError, type Action, type Exclusions, type ProcessIdentity, type Truncation, type WindowInfo } from '../../../../protocol/index.js';
import type { Backend, DispatchResult, NativeNode, TreeSource, WindowHandle } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import { isExcluded } from '../../../core/exclusions.js';
import { dispatchWin32 } from './win32Actions.js';
import { describeWindow, isTopLevel, processInfo, topLevelWindows, windowKey, windowPid, type Win32Node } from './win32Reader.js';
import { Win32TreeSource } from './win32TreeSource.js';
import { PER_MONITOR_AWARE_V2, user32, type User32 } from './user32.js';

/**
 * The plain Win32 tier (`backend: "win32"`): classic child windows read with EnumChildWindows,
 * class, WM_GETTEXT and styles; actions only through documented control messages, each read
 * back. Used directly, or by `auto` when UI Automation is unavailable.
 */
export class Win32Backend implements Backend {
  readonly name = 'win32' as const;
  readonly capabilities = ['window_list', 'window_read', 'element_find', 'element_act', 'cancel'] as const;
  private u: User32 | undefined;
  private exclusions: Exclusions = {};
  readonly fallbackReason?: string;

  constructor(
    private readonly log: (line: string) => void,
    fallbackReason?: string,
  ) {
    if (fallbackReason !== undefined) this.fallbackReason = fallbackReason;
  }

  start(): Promise<void> {
    try {
      this.u = user32();
    } catch (error) {
      return Promise.reject(fail('accessibility_unavailable', `the Win32 functions could not be loaded: ${error instanceof Error ? error.message : String(error)}`, { reason: 'win32_unavailable' }));
    }
    // Before any window call, so every rect is in physical pixels.
    const aware = this.u.SetProcessDpiAwarenessContext?.(PER_MONITOR_AWARE_V2) ?? false;
    if (!aware) this.log('[win32] Per-Monitor-V2 DPI awareness is not available here; rects may be scaled');
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  setExclusions(exclusions: Exclusions): void {
    this.exclusions = exclusions;
  }

  private get api(): User32 {
    if (this.u === undefined) throw fail('accessibility_unavailable', 'the Win32 tier is not started', { reason: 'win32_unavailable' });
    return this.u;
  }

  private process(pid: number): { start: string; app: string } {
    const info = processInfo(this.api, pid);
    if (info === undefined) throw fail('stale_process', `process ${pid} has exited`, { pid });
    if ('denied' in info) throw fail('target_elevated', `process ${pid} runs with higher privileges than the helper`, { pid });
    return info;
  }

  listWindows(deadline: Deadline): Promise<{ windows: WindowInfo[]; truncated: Truncation[]; notes: string[] }> {
    const u = this.api;
    const windows: WindowInfo[] = [];
    const notes: string[] = [];
    const truncated = new Set<Truncation>();
    for (const hwnd of topLevelWindows(u)) {
      if (deadline.expired()) {
        truncated.add('timeout');
        break;
      }
      const pid = windowPid(u, hwnd);
      const info = processInfo(u, pid);
      if (info === undefined) continue;
      if ('denied' in info) {
        notes.push(`window ${hwnd} (pid ${pid}) runs elevated and cannot be read`);
        continue;
      }
      if (isExcluded(this.exclusions, pid, info.app)) continue;
      windows.push(describeWindow(u, hwnd, pid, info));
    }
    windows.sort((a, b) => Number(b.foreground) - Number(a.foreground));
    return Promise.resolve({ windows, truncated: [...truncated], notes });
  }

  async resolveWindow(id: string | undefined, deadline: Deadline): Promise<WindowHandle> {
    if (id === undefined) {
      const first = (await this.listWindows(deadline)).windows[0];
      if (first === undefined) throw fail('not_found', 'there is no visible titled window to read', { searched_whole_window: true });
      return this.resolveWindow(first.window, deadline);
    }
    if (!/^\d{1,20}$/.test(id)) throw fail('invalid_argument', `"${id}" is not a window id from window_list`);
    const u = this.api;
    const hwnd = Number(id);
    if (!isTopLevel(u, hwnd)) throw fail('stale_window', `window ${id} is gone`, { window: id });
    const pid = windowPid(u, hwnd);
    let process: { start: string; app: string };
    try {
      process = this.process(pid);
    } catch (error) {
      if (error instanceof OverseerError && error.code === 'stale_process') throw fail('stale_window', `window ${id} is gone: its process exited`, { window: id });
      throw error;
    }
    if (isExcluded(this.exclusions, pid, process.app)) throw fail('excluded_target', `window ${id} belongs to an excluded application (${process.app}, pid ${pid})`, { window: id, pid });
    return { info: describeWindow(u, hwnd, pid, process), rootKey: windowKey(hwnd), process: { pid, process_start: process.start } };
  }

  open(window: WindowHandle, deadline: Deadline): Promise<TreeSource> {
    const source = new Win32TreeSource(window, this.api);
    source.open(deadline);
    return Promise.resolve(source);
  }

  checkProcess(identity: ProcessIdentity): Promise<void> {
    try {
      const info = this.process(identity.pid);
      if (info.start !== identity.process_start) return Promise.reject(fail('stale_process', `pid ${identity.pid} now belongs to another process (creation time changed)`, { pid: identity.pid }));
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  dispatch(source: TreeSource, node: NativeNode, action: Action, text: string | undefined, deadline: Deadline): Promise<DispatchResult> {
    if (!(source instanceof Win32TreeSource)) throw new Error('foreign tree source');
    try {
      return Promise.resolve(dispatchWin32(this.api, node as Win32Node, action, text, source.window.process.pid, deadline));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
