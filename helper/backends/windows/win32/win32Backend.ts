import { fail, type Action, type Exclusions, type ProcessIdentity, type Truncation, type WindowInfo } from '../../../../protocol/index.js';
import type { Backend, DispatchResult, NativeNode, TreeSource, WindowHandle } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import { DesktopWindows } from './desktopWindows.js';
import { dispatchWin32 } from './win32Actions.js';
import type { Win32Node } from './win32Reader.js';
import { Win32TreeSource } from './win32TreeSource.js';
import { PER_MONITOR_AWARE_V2, user32, type User32 } from './win32Api.js';

/** Binds the Win32 API and sets Per-Monitor-V2 DPI awareness before any window call (rects in physical pixels). */
export function startWin32(log: (line: string) => void, tier: string): User32 {
  let u: User32;
  try {
    u = user32();
  } catch (error) {
    throw fail('accessibility_unavailable', `the Win32 functions could not be loaded: ${error instanceof Error ? error.message : String(error)}`, { reason: `${tier}_unavailable` });
  }
  if (!(u.SetProcessDpiAwarenessContext?.(PER_MONITOR_AWARE_V2) ?? false)) log(`[${tier}] Per-Monitor-V2 DPI awareness is not available here; rects may be scaled`);
  return u;
}

/** Turns a synchronous throw into a rejected promise (backends answer with promises). */
export function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * The plain Win32 tier (`backend: "win32"`): classic child windows read with EnumChildWindows,
 * class, WM_GETTEXT and styles; actions only through documented control messages, each read
 * back. Used directly, or by `auto` when UI Automation is unavailable.
 */
export class Win32Backend implements Backend {
  readonly name = 'win32' as const;
  readonly capabilities = ['window_list', 'window_read', 'element_find', 'element_act', 'cancel'] as const;
  readonly fallbackReason?: string;
  private u: User32 | undefined;
  private windows: DesktopWindows | undefined;
  private exclusions: Exclusions = {};

  constructor(
    private readonly log: (line: string) => void,
    fallbackReason?: string,
  ) {
    if (fallbackReason !== undefined) this.fallbackReason = fallbackReason;
  }

  start(): Promise<void> {
    return settle(() => {
      this.u = startWin32(this.log, 'win32');
      this.windows = new DesktopWindows(this.u);
      this.windows.exclusions = this.exclusions;
    });
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  setExclusions(exclusions: Exclusions): void {
    this.exclusions = exclusions;
    if (this.windows !== undefined) this.windows.exclusions = exclusions;
  }

  private get desktop(): { u: User32; windows: DesktopWindows } {
    if (this.u === undefined || this.windows === undefined) throw fail('accessibility_unavailable', 'the Win32 tier is not started', { reason: 'win32_unavailable' });
    return { u: this.u, windows: this.windows };
  }

  listWindows(deadline: Deadline): Promise<{ windows: WindowInfo[]; truncated: Truncation[]; notes: string[] }> {
    return settle(() => this.desktop.windows.list(deadline));
  }

  resolveWindow(id: string | undefined, deadline: Deadline): Promise<WindowHandle> {
    return settle(() => this.desktop.windows.resolve(id, deadline));
  }

  open(window: WindowHandle, deadline: Deadline): Promise<TreeSource> {
    return settle(() => {
      const source = new Win32TreeSource(window, this.desktop.u);
      source.open(deadline);
      return source;
    });
  }

  checkProcess(identity: ProcessIdentity): Promise<void> {
    return settle(() => this.desktop.windows.checkProcess(identity));
  }

  dispatch(source: TreeSource, node: NativeNode, action: Action, text: string | undefined, deadline: Deadline): Promise<DispatchResult> {
    if (!(source instanceof Win32TreeSource)) throw new Error('foreign tree source');
    return settle(() => dispatchWin32(this.desktop.u, node as Win32Node, action, text, source.window.process.pid, deadline));
  }
}
