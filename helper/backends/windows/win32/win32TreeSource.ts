import type { WindowHandle } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import { readItems, readWindow, type Win32Node } from './win32Reader.js';
import type { User32 } from './win32Api.js';
import { ReadAtOnceSource } from '../readAtOnceSource.js';

/**
 * One read of a window's child windows. EnumChildWindows and the messages are fast (thousands of
 * windows a second), so every child window is read when the source opens, within the deadline;
 * list and combo box items (possibly thousands) are read on demand, as far as the budget asks.
 */
export class Win32TreeSource extends ReadAtOnceSource<Win32Node> {
  constructor(
    window: WindowHandle,
    private readonly u: User32,
  ) {
    super(window);
  }

  open(deadline: Deadline): void {
    const hwnd = Number(this.window.info.window);
    this.nodes = readWindow(this.u, hwnd, this.window.info.title, deadline, this);
    if (this.truncated.has('timeout'))
      this.notes.push(`timeout: ${this.window.info.app} (pid ${this.window.process.pid}) did not answer every message in time`);
  }

  /** Reads list and combo box items on demand, up to `limit` of each control (the rest of the window is already read). */
  override expand(keys: readonly string[], deadline: Deadline, limit: number): Promise<void> {
    for (const key of keys) {
      const node = this.nodes.get(key);
      if (node === undefined || (node.kind !== 'list' && node.kind !== 'combo') || node.childCount < 0) continue;
      if ((node.children ?? []).slice(0, limit).some((k) => !this.nodes.has(k))) readItems(this.u, node, limit, deadline, this, this.nodes);
    }
    return Promise.resolve();
  }

  /** An item not read yet is read with the items before it (item keys are `w:<hwnd>:<index>`). */
  override fetch(key: string, deadline: Deadline): Promise<Win32Node | undefined> {
    const known = this.nodes.get(key);
    if (known !== undefined) return Promise.resolve(known);
    const m = /^(w:\d+):(\d+)$/.exec(key);
    const control = m === null ? undefined : this.nodes.get(m[1] as string);
    if (m !== null && control !== undefined && (control.kind === 'list' || control.kind === 'combo'))
      readItems(this.u, control, Number(m[2]) + 1, deadline, this, this.nodes);
    return Promise.resolve(this.nodes.get(key));
  }
}
