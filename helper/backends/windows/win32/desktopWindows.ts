import { fail, OverseerError, type Exclusions, type ProcessIdentity, type Truncation, type WindowInfo } from '../../../../protocol/index.js';
import type { WindowHandle } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import { isExcluded, isExcludedTitle } from '../../../core/exclusions.js';
import type { User32 } from './win32Api.js';
import { describeWindow, isTopLevel, processInfo, topLevelWindows, windowKey, windowPid } from './win32Reader.js';

/**
 * Top-level windows and process identity on Windows, for both backends: window ids are HWNDs
 * (decimal), processes are pid + creation time, elevated targets are refused, exclusions apply.
 */
export class DesktopWindows {
  exclusions: Exclusions = {};

  constructor(private readonly u: User32) {}

  /** pid's creation time and app name; throws stale_process or target_elevated. */
  process(pid: number): { start: string; app: string } {
    const info = processInfo(this.u, pid);
    if (info === undefined) throw fail('stale_process', `process ${pid} has exited`, { pid });
    if ('denied' in info)
      throw fail('target_elevated', `process ${pid} runs with higher privileges than the helper; run Overseer elevated to read it`, { pid });
    return info;
  }

  list(deadline: Deadline): { windows: WindowInfo[]; truncated: Truncation[]; notes: string[] } {
    const windows: WindowInfo[] = [];
    const notes: string[] = [];
    const truncated = new Set<Truncation>();
    for (const hwnd of topLevelWindows(this.u)) {
      if (deadline.expired()) {
        truncated.add('timeout');
        break;
      }
      const pid = windowPid(this.u, hwnd);
      const info = processInfo(this.u, pid);
      if (info === undefined) continue;
      if ('denied' in info) {
        notes.push(`window ${hwnd} (pid ${pid}) runs with higher privileges than the helper and cannot be read`);
        continue;
      }
      if (isExcluded(this.exclusions, pid, info.app)) continue;
      const described = describeWindow(this.u, hwnd, pid, info);
      if (!isExcludedTitle(this.exclusions, described.title)) windows.push(described);
    }
    windows.sort((a, b) => Number(b.foreground) - Number(a.foreground));
    return { windows, truncated: [...truncated], notes };
  }

  resolve(id: string | undefined, deadline: Deadline): WindowHandle {
    if (id === undefined) {
      const first = this.list(deadline).windows[0];
      if (first === undefined) throw fail('not_found', 'there is no visible titled window to read', { searched_whole_window: true });
      return this.resolve(first.window, deadline);
    }
    if (!/^\d{1,20}$/.test(id)) throw fail('invalid_argument', `"${id}" is not a window id from window_list`);
    const hwnd = Number(id);
    if (!isTopLevel(this.u, hwnd)) throw fail('window_gone', `window ${id} is gone`, { window: id });
    const pid = windowPid(this.u, hwnd);
    let process: { start: string; app: string };
    try {
      process = this.process(pid);
    } catch (error) {
      if (error instanceof OverseerError && error.code === 'stale_process')
        throw fail('window_gone', `window ${id} is gone: its process exited`, { window: id });
      throw error;
    }
    if (isExcluded(this.exclusions, pid, process.app))
      throw fail('excluded_target', `window ${id} belongs to an excluded application (${process.app}, pid ${pid})`, { window: id, pid });
    const info = describeWindow(this.u, hwnd, pid, process);
    if (isExcludedTitle(this.exclusions, info.title))
      throw fail('excluded_target', `window ${id} shows the supervisor's own UI ("${info.title}")`, { window: id, pid });
    return { info, rootKey: windowKey(hwnd), process: { pid, process_start: process.start } };
  }

  checkProcess(identity: ProcessIdentity): void {
    const info = this.process(identity.pid);
    if (info.start !== identity.process_start)
      throw fail('stale_process', `pid ${identity.pid} now belongs to another process (creation time changed)`, { pid: identity.pid });
  }
}
