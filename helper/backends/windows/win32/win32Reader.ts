import { rect, type Rect, type Truncation, type WindowInfo } from '../../../../protocol/index.js';
import type { NativeNode } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import { checkedState, classify, type ControlKind } from './controls.js';
import { appName, filetime, labelName, stripMnemonic } from './text.js';
import { BM, CB, GA_ROOT, GWL, LB, PROCESS_QUERY_LIMITED_INFORMATION, SMTO, TOKEN_ELEVATION, TOKEN_QUERY, WM, type User32 } from './win32Api.js';

/** Longest a single message to another process may take, within the read's deadline. */
const MESSAGE_MS = 250;
/** Text longer than this is cut when read (the core cuts further by max_text_chars). */
const MAX_TEXT = 32_768;
const EX_TOOLWINDOW = 0x80;

/** A Win32 element: the native node, with what the tier needs to drive it. */
export interface Win32Node extends NativeNode {
  hwnd: number;
  kind: ControlKind | 'item';
  /** Index of a list or combo item within its control. */
  item?: number;
  /** True for an item of a combo box (CB_ messages), false/absent for a list box item (LB_). */
  inCombo?: boolean;
  /** A list or combo box's selected index (−1: none). */
  selectedItem?: number | undefined;
  ctrlId?: number;
}

/** The key of a window and of an item of a list/combo control. */
export const windowKey = (hwnd: number): string => `w:${hwnd}`;
export const itemKey = (hwnd: number, index: number): string => `w:${hwnd}:${index}`;

/** What one read of a window met. */
export interface ReadProblems {
  truncated: Set<Truncation>;
  notes: string[];
}

/** Sends a message with a timeout; undefined when the application did not answer in time. */
function send(u: User32, hwnd: number, msg: number, wp: number, lp: number, deadline: Deadline, problems: ReadProblems): number | undefined {
  const result = [0];
  const timeout = Math.max(1, Math.min(MESSAGE_MS, deadline.remaining()));
  if (u.SendMessageTimeoutInt(hwnd, msg, wp, lp, SMTO.ABORTIFHUNG | SMTO.BLOCK, timeout, result) === 0) {
    problems.truncated.add('timeout');
    return undefined;
  }
  return Number(result[0]);
}

/** Reads text through a buffer message (WM_GETTEXT, LB_GETTEXT, CB_GETLBTEXT) after asking its length. */
function sendText(u: User32, hwnd: number, lengthMsg: number, textMsg: number, index: number, deadline: Deadline, problems: ReadProblems): string | undefined {
  const length = send(u, hwnd, lengthMsg, index, 0, deadline, problems);
  if (length === undefined || length < 0) return undefined;
  const chars = Math.min(length, MAX_TEXT);
  const buffer = Buffer.alloc((chars + 1) * 2);
  const result = [0];
  const timeout = Math.max(1, Math.min(MESSAGE_MS, deadline.remaining()));
  const wp = textMsg === WM.GETTEXT ? chars + 1 : index;
  if (length > MAX_TEXT && textMsg !== WM.GETTEXT) return undefined; // item text longer than the buffer: do not let it overrun
  if (u.SendMessageTimeoutBuf(hwnd, textMsg, wp, buffer, SMTO.ABORTIFHUNG | SMTO.BLOCK, timeout, result) === 0) {
    problems.truncated.add('timeout');
    return undefined;
  }
  const got = Math.min(Number(result[0]), chars);
  return buffer.toString('utf16le', 0, Math.max(0, got) * 2);
}

export function className(u: User32, hwnd: number): string {
  const b = Buffer.alloc(512);
  const n = u.GetClassNameW(hwnd, b, 256);
  return b.toString('utf16le', 0, n * 2);
}

/** A top-level window's title; InternalGetWindowText never sends a message, so a hung application cannot block it. */
export function windowTitle(u: User32, hwnd: number): string {
  const b = Buffer.alloc(2048);
  const n = u.InternalGetWindowText(hwnd, b, 1024);
  return b.toString('utf16le', 0, n * 2);
}

export function windowRect(u: User32, hwnd: number): Rect | undefined {
  const b = Buffer.alloc(16);
  if (!u.GetWindowRect(hwnd, b)) return undefined;
  const [l, t, r, bottom] = [b.readInt32LE(0), b.readInt32LE(4), b.readInt32LE(8), b.readInt32LE(12)];
  return rect(l, t, r - l, bottom - t);
}

export function windowPid(u: User32, hwnd: number): number {
  const pid = [0];
  u.GetWindowThreadProcessId(hwnd, pid);
  return Number(pid[0]);
}

/** TokenElevation of a process token (its first DWORD); undefined when the token cannot be read. */
function tokenElevated(u: User32, process: number): boolean | undefined {
  const token = [0];
  if (!u.OpenProcessToken(process, TOKEN_QUERY, token)) return undefined;
  try {
    const info = Buffer.alloc(4);
    return u.GetTokenInformation(Number(token[0]), TOKEN_ELEVATION, info, 4, [0]) ? info.readUInt32LE(0) !== 0 : undefined;
  } finally {
    u.CloseHandle(Number(token[0]));
  }
}

let selfElevated: boolean | undefined;

/**
 * True when a process runs with higher privileges than the helper (UIPI would hide or block it):
 * its token is elevated, or closed to us, while ours is not.
 */
function higherThanUs(u: User32, process: number): boolean {
  selfElevated ??= tokenElevated(u, u.GetCurrentProcess()) === true;
  if (selfElevated) return false;
  return tokenElevated(u, process) ?? true;
}

/** pid + creation time (GetProcessTimes) and the executable's name; `denied` for a process above the helper's privileges; undefined when it is gone. */
export function processInfo(u: User32, pid: number): { start: string; app: string } | { denied: true } | undefined {
  const handle = u.OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid);
  if (handle === 0) return u.GetLastError() === 5 ? { denied: true } : undefined;
  try {
    if (higherThanUs(u, handle)) return { denied: true };
    const [created, exited, kernel, user] = [Buffer.alloc(8), Buffer.alloc(8), Buffer.alloc(8), Buffer.alloc(8)];
    if (!u.GetProcessTimes(handle, created, exited, kernel, user)) return undefined;
    const name = Buffer.alloc(2048);
    const size = [1024];
    const image = u.QueryFullProcessImageNameW(handle, 0, name, size) ? name.toString('utf16le', 0, Number(size[0]) * 2) : '';
    return { start: filetime(created), app: appName(image) };
  } finally {
    u.CloseHandle(handle);
  }
}

/** Visible, titled top-level windows (tool windows left out), in z-order: front first. */
export function topLevelWindows(u: User32): number[] {
  const found: number[] = [];
  u.EnumWindows((hwnd) => {
    if (u.IsWindowVisible(hwnd) && (u.GetWindowLongPtrW(hwnd, GWL.EXSTYLE) & EX_TOOLWINDOW) === 0 && windowTitle(u, hwnd) !== '') found.push(hwnd);
    return true;
  }, 0);
  return found;
}

/** True when hwnd is a live top-level window. */
export function isTopLevel(u: User32, hwnd: number): boolean {
  return u.IsWindow(hwnd) && u.GetAncestor(hwnd, GA_ROOT) === hwnd;
}

/** The WindowInfo of a top-level window. */
export function describeWindow(u: User32, hwnd: number, pid: number, process: { start: string; app: string }): WindowInfo {
  const cls = className(u, hwnd);
  const info: WindowInfo = {
    window: String(hwnd),
    title: windowTitle(u, hwnd),
    class: cls,
    app: process.app,
    pid,
    process_start: process.start,
    foreground: u.GetForegroundWindow() === hwnd,
    role: cls === '#32770' ? 'dialog' : 'window',
  };
  const r = windowRect(u, hwnd);
  if (r !== undefined) info.rect = r;
  return info;
}

/**
 * Reads a window and all its child windows (EnumChildWindows), with list and combo items as
 * children of their control. Every message is sent with a timeout inside the deadline; what a
 * frozen application did not answer is left unread and the read is marked `timeout`.
 */
export function readWindow(u: User32, top: number, title: string, deadline: Deadline, problems: ReadProblems): Map<string, Win32Node> {
  const nodes = new Map<string, Win32Node>();
  const rootStyle = u.GetWindowLongPtrW(top, GWL.STYLE);
  const rootClass = className(u, top);
  const root: Win32Node = {
    key: windowKey(top),
    hwnd: top,
    kind: rootClass === '#32770' ? 'dialog' : 'other',
    parent: undefined,
    children: [],
    childCount: 0,
    role: rootClass === '#32770' ? 'dialog' : 'window',
    className: rootClass,
    name: title,
    state: { enabled: (rootStyle & 0x0800_0000) === 0, offscreen: false, active: u.GetForegroundWindow() === top },
    patterns: [],
    detailed: true,
    unread: new Set(),
  };
  const r0 = windowRect(u, top);
  if (r0 !== undefined) root.rect = r0;
  nodes.set(root.key, root);
  const order: number[] = [];
  u.EnumChildWindows(
    top,
    (hwnd) => {
      order.push(hwnd);
      return !deadline.expired();
    },
    0,
  );
  if (deadline.expired()) problems.truncated.add('timeout');
  let lastLabel: string | undefined;
  for (const hwnd of order) {
    if (deadline.expired()) {
      problems.truncated.add('timeout');
      break;
    }
    const parentHwnd = u.GetParent(hwnd);
    const parent = nodes.get(windowKey(parentHwnd));
    if (parent === undefined) continue; // an owned popup, not a child: it is its own window
    const style = u.GetWindowLongPtrW(hwnd, GWL.STYLE);
    const cls = className(u, hwnd);
    const c = classify(cls, style);
    const ctrlId = u.GetDlgCtrlID(hwnd);
    const node: Win32Node = {
      key: windowKey(hwnd),
      hwnd,
      kind: c.kind,
      parent: parent.key,
      children: [],
      childCount: 0,
      role: c.role,
      className: cls,
      state: { ...c.state },
      patterns: [...c.patterns],
      detailed: true,
      unread: new Set(),
      ctrlId,
    };
    if (ctrlId > 0 && ctrlId < 0xffff) node.automationId = String(ctrlId);
    const r = windowRect(u, hwnd);
    if (r !== undefined) node.rect = r;
    const password = c.state.password === true;
    const text = password ? undefined : sendText(u, hwnd, WM.GETTEXTLENGTH, WM.GETTEXT, 0, deadline, problems);
    if (text === undefined && !password) node.unread.add(c.kind === 'edit' ? 'value' : 'name');
    switch (c.kind) {
      case 'edit':
        if (text !== undefined) node.value = text;
        if (lastLabel !== undefined) node.name = lastLabel;
        break;
      case 'combo':
      case 'list':
        if (lastLabel !== undefined) node.name = lastLabel;
        countItems(u, node, deadline, problems);
        break;
      case 'check':
      case 'radio': {
        node.name = stripMnemonic(text ?? '');
        const check = send(u, hwnd, BM.GETCHECK, 0, 0, deadline, problems);
        if (check === undefined) node.unread.add('state');
        else {
          const state = checkedState(check);
          node.state = { ...node.state, checked: state, ...(c.kind === 'radio' ? { selected: state === true } : {}) };
        }
        break;
      }
      default:
        if (text !== undefined) node.name = stripMnemonic(text);
    }
    if (c.kind === 'static' && text !== undefined && text.trim() !== '') lastLabel = labelName(text);
    else if (c.kind !== 'group') lastLabel = undefined;
    nodes.set(node.key, node);
    parent.children?.push(node.key);
    parent.childCount = parent.children?.length ?? 0;
  }
  return nodes;
}

/**
 * Counts a list or combo box's items and reads the combo's current text; the items themselves are
 * read on demand (readItems), as many as the read's child budget asks for.
 */
function countItems(u: User32, control: Win32Node, deadline: Deadline, problems: ReadProblems): void {
  const combo = control.kind === 'combo';
  const count = send(u, control.hwnd, combo ? CB.GETCOUNT : LB.GETCOUNT, 0, 0, deadline, problems);
  if (count === undefined || count < 0) {
    control.children = undefined;
    control.unread.add('children');
    control.childCount = -1;
    return;
  }
  // Every item's key is known from the count; an item's node exists once it was read.
  control.children = Array.from({ length: count }, (_, i) => itemKey(control.hwnd, i));
  control.childCount = count;
  const current = send(u, control.hwnd, combo ? CB.GETCURSEL : LB.GETCURSEL, 0, 0, deadline, problems);
  control.selectedItem = current;
  if (combo && current !== undefined && current >= 0) {
    const text = sendText(u, control.hwnd, CB.GETLBTEXTLEN, CB.GETLBTEXT, current, deadline, problems);
    if (text === undefined) control.unread.add('value');
    else control.value = text;
  }
}

/** Reads the not yet read items below index `to` of a list or combo box, as list_item nodes (selectable through LB_/CB_SETCURSEL). */
export function readItems(u: User32, control: Win32Node, to: number, deadline: Deadline, problems: ReadProblems, nodes: Map<string, Win32Node>): void {
  const combo = control.kind === 'combo';
  const end = Math.min(to, control.childCount);
  for (let i = 0; i < end; i++) {
    if (nodes.has(itemKey(control.hwnd, i))) continue;
    if (deadline.expired()) {
      problems.truncated.add('timeout');
      break;
    }
    const text = sendText(u, control.hwnd, combo ? CB.GETLBTEXTLEN : LB.GETTEXTLEN, combo ? CB.GETLBTEXT : LB.GETTEXT, i, deadline, problems);
    const selected = control.selectedItem === i;
    const item: Win32Node = {
      key: itemKey(control.hwnd, i),
      hwnd: control.hwnd,
      kind: 'item',
      item: i,
      parent: control.key,
      children: [],
      childCount: 0,
      role: 'list_item',
      state: { enabled: control.state?.enabled !== false, selectable: true, selected },
      patterns: control.state?.enabled === false ? [] : ['selection_item'],
      detailed: true,
      unread: new Set(),
    };
    if (combo) item.inCombo = true;
    if (text === undefined) item.unread.add('name');
    else item.name = text;
    nodes.set(item.key, item);
  }
}
