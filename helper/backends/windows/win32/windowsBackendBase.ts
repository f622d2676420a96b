import { fail, type Exclusions, type ProcessIdentity, type Truncation, type WindowInfo } from '../../../../protocol/index.js';
import type { WindowHandle } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import { DPI_CONTEXT } from '../../../platform/win32/user32.js';
import { DesktopWindows } from './desktopWindows.js';
import { user32, type User32 } from './win32Api.js';

/** Turns a synchronous throw into a rejected promise (backends answer with promises). */
export function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * What both Windows backends share: the Win32 API bound at start with Per-Monitor-V2 DPI awareness
 * set before any window call (rects in physical pixels), and windows, processes, elevation and
 * exclusions through DesktopWindows (HWND ids, pid + creation time).
 */
export abstract class WindowsBackendBase {
  private u: User32 | undefined;
  private windows: DesktopWindows | undefined;
  private exclusions: Exclusions = {};

  constructor(
    protected readonly log: (line: string) => void,
    private readonly tier: 'win32' | 'uia',
  ) {}

  start(): Promise<void> {
    return settle(() => {
      let u: User32;
      try {
        u = user32();
      } catch (error) {
        throw fail('accessibility_unavailable', `the Win32 functions could not be loaded: ${error instanceof Error ? error.message : String(error)}`, {
          reason: `${this.tier}_unavailable`,
        });
      }
      if (!(u.SetProcessDpiAwarenessContext?.(DPI_CONTEXT.PER_MONITOR_AWARE_V2) ?? false))
        this.log(`[${this.tier}] Per-Monitor-V2 DPI awareness is not available here; rects may be scaled`);
      this.u = u;
      this.windows = new DesktopWindows(u);
      this.windows.exclusions = this.exclusions;
    });
  }

  setExclusions(exclusions: Exclusions): void {
    this.exclusions = exclusions;
    if (this.windows !== undefined) this.windows.exclusions = exclusions;
  }

  protected get desktop(): { u: User32; windows: DesktopWindows } {
    if (this.u === undefined || this.windows === undefined)
      throw fail('accessibility_unavailable', `the ${this.tier} backend is not started`, { reason: `${this.tier}_unavailable` });
    return { u: this.u, windows: this.windows };
  }

  listWindows(deadline: Deadline): Promise<{ windows: WindowInfo[]; truncated: Truncation[]; notes: string[] }> {
    return settle(() => this.desktop.windows.list(deadline));
  }

  resolveWindow(id: string | undefined, deadline: Deadline): Promise<WindowHandle> {
    return settle(() => this.desktop.windows.resolve(id, deadline));
  }

  checkProcess(identity: ProcessIdentity): Promise<void> {
    return settle(() => this.desktop.windows.checkProcess(identity));
  }
}
