import type { Truncation } from '../../../../protocol/index.js';
import type { TreeSource, WindowHandle } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import { readWindow, type Win32Node } from './win32Reader.js';
import type { User32 } from './win32Api.js';

/**
 * One read of a window's child windows. EnumChildWindows and the messages are fast (thousands of
 * windows a second), so the whole window is read when the source opens, within the deadline;
 * expand/details have nothing left to fetch.
 */
export class Win32TreeSource implements TreeSource {
  readonly truncated = new Set<Truncation>();
  readonly notes: string[] = [];
  private nodes = new Map<string, Win32Node>();

  constructor(
    readonly window: WindowHandle,
    private readonly u: User32,
  ) {}

  open(deadline: Deadline): void {
    const hwnd = Number(this.window.info.window);
    this.nodes = readWindow(this.u, hwnd, this.window.info.title, deadline, this);
    if (this.truncated.has('timeout')) this.notes.push(`timeout: ${this.window.info.app} (pid ${this.window.process.pid}) did not answer every message in time`);
  }

  node(key: string): Win32Node | undefined {
    return this.nodes.get(key);
  }

  expand(): Promise<void> {
    return Promise.resolve();
  }

  details(): Promise<void> {
    return Promise.resolve();
  }

  fetch(key: string): Promise<Win32Node | undefined> {
    return Promise.resolve(this.nodes.get(key));
  }

  isDetailed(key: string): boolean {
    return this.nodes.has(key);
  }

  finish(): void {}
}
