// The peer of the Win32 reader benchmark, run inside the same Windows build of Node under Wine:
// the plainest loop over the same Win32 calls the tier makes (EnumChildWindows, class, style,
// control id, rect, WM_GETTEXT through SendMessageTimeout), with no shaping, budgets or protocol.
// Prints {"windows": N, "ms": [...]} for OVERSEER_BENCH_HWND, OVERSEER_BENCH_REPEATS times.
import { writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { GWL, SMTO, WM, user32 } from '../helper/backends/windows/win32/win32Api.js';

const u = user32();
const top = Number(process.env['OVERSEER_BENCH_HWND']);
const repeats = Number(process.env['OVERSEER_BENCH_REPEATS'] ?? '20');
const ms: number[] = [];
let windows = 0;
for (let r = 0; r < repeats; r++) {
  const t0 = performance.now();
  const found: number[] = [];
  u.EnumChildWindows(top, (h) => (found.push(h), true), 0);
  for (const h of found) {
    const cls = Buffer.alloc(512);
    u.GetClassNameW(h, cls, 256);
    u.GetWindowLongPtrW(h, GWL.STYLE);
    u.GetDlgCtrlID(h);
    u.GetWindowRect(h, Buffer.alloc(16));
    const len = [0];
    u.SendMessageTimeoutInt(h, WM.GETTEXTLENGTH, 0, 0, SMTO.ABORTIFHUNG, 250, len);
    const text = Buffer.alloc((Number(len[0]) + 1) * 2);
    u.SendMessageTimeoutBuf(h, WM.GETTEXT, Number(len[0]) + 1, text, SMTO.ABORTIFHUNG, 250, [0]);
  }
  ms.push(performance.now() - t0);
  windows = found.length;
}
writeSync(1, `${JSON.stringify({ windows, ms })}\n`);
