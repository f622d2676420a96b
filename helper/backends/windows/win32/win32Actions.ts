import { fail, type Action } from '../../../../protocol/index.js';
import { DispatchError, type DispatchResult } from '../../../core/backend.js';
import type { Deadline } from '../../../core/deadline.js';
import { setValueRoute } from '../../../core/setValue.js';
import type { Win32Node } from './win32Reader.js';
import { windowPid } from './win32Reader.js';
import { BM, CB, CBN_SELCHANGE, LB, LBN_SELCHANGE, SMTO, WM, type User32 } from './win32Api.js';

const MESSAGE_MS = 2000;

/** Sends a message the tier dispatches with; a timeout after sending means the outcome is unknown. */
function dispatchSend(u: User32, hwnd: number, msg: number, wp: number, lp: number | string, path: string, deadline: Deadline): number {
  const result = [0];
  const timeout = Math.max(1, Math.min(MESSAGE_MS, deadline.remaining()));
  const flags = SMTO.ABORTIFHUNG | SMTO.ERRORONEXIT;
  const sent =
    typeof lp === 'string'
      ? u.SendMessageTimeoutStr(hwnd, msg, wp, lp, flags, timeout, result)
      : u.SendMessageTimeoutInt(hwnd, msg, wp, lp, flags, timeout, result);
  if (sent === 0) throw new DispatchError(`${path}: the application did not finish handling the message within ${timeout} ms`, 'unknown', 'unknown');
  return Number(result[0]);
}

/**
 * Drives a control through its documented message contract only, never input: BM_CLICK for
 * buttons, check boxes and radios; WM_SETTEXT for edits; LB_/CB_SETCURSEL plus the selection
 * notification the control would have sent for list and combo items. The HWND and its owning
 * process are checked right before the message goes out.
 */
export function dispatchWin32(u: User32, node: Win32Node, action: Action, text: string | undefined, expectedPid: number, deadline: Deadline): DispatchResult {
  if (!u.IsWindow(node.hwnd) || windowPid(u, node.hwnd) !== expectedPid)
    throw fail('stale_element', `the control (HWND ${node.hwnd}) is gone or now belongs to another process`);
  if (action === 'invoke' && node.kind === 'push') {
    // Posted, as a click is: a button that opens a modal dialog must not hold the helper.
    if (!u.PostMessageW(node.hwnd, BM.CLICK, 0, 0)) return { path: 'win32:BM_CLICK', ok: false, detail: `PostMessage failed (error ${u.GetLastError()})` };
    return { path: 'win32:BM_CLICK', ok: true };
  }
  if ((action === 'toggle' && node.kind === 'check') || (action === 'select' && node.kind === 'radio')) {
    if (action === 'select' && node.state?.checked === true) return { path: 'win32:BM_CLICK', ok: true, noop: true, detail: 'already selected' };
    dispatchSend(u, node.hwnd, BM.CLICK, 0, 0, 'win32:BM_CLICK', deadline);
    return { path: 'win32:BM_CLICK', ok: true };
  }
  if (action === 'set_value' && node.kind === 'edit') {
    // An edit control has text only: the shared rule routes every string, "" included, to it.
    const route = setValueRoute(node.patterns, text);
    if (route.via !== 'text') throw fail('pattern_unsupported', 'a Win32 edit control takes text, not a range value', { supported: node.patterns });
    const ok = dispatchSend(u, node.hwnd, WM.SETTEXT, 0, route.text, 'win32:WM_SETTEXT', deadline);
    return { path: 'win32:WM_SETTEXT', ok: ok !== 0 };
  }
  if (action === 'select' && node.kind === 'item' && node.item !== undefined) {
    const parent = u.GetParent(node.hwnd);
    const id = u.GetDlgCtrlID(node.hwnd);
    const combo = node.inCombo === true;
    const path = combo ? 'win32:CB_SETCURSEL+CBN_SELCHANGE' : 'win32:LB_SETCURSEL+LBN_SELCHANGE';
    const set = dispatchSend(u, node.hwnd, combo ? CB.SETCURSEL : LB.SETCURSEL, node.item, 0, path, deadline);
    if (set < 0 || set === 0xffffffff) return { path, ok: false, detail: 'the control refused the index' };
    // SETCURSEL does not notify; the application learns of the change as from a person.
    const notification = ((combo ? CBN_SELCHANGE : LBN_SELCHANGE) << 16) | (id & 0xffff);
    dispatchSend(u, parent, WM.COMMAND, notification, node.hwnd, path, deadline);
    return { path, ok: true };
  }
  throw fail('pattern_unsupported', `the Win32 tier has no message contract for ${action} on a ${node.role}`, { supported: node.patterns });
}
