// Serves the Windows screen backend's methods over JSON-RPC on stdio, one frame a line, so a test
// on Linux can drive it inside the Windows build of Node under Wine (and on Windows, from the
// sources): a request names a ScreenBackend method and carries its arguments as an array; image
// bytes travel as base64. Typed failures cross as OverseerErrors. Two more methods serve the test:
// `dpi` (what DPI awareness open obtained) and `openTestWindow` (a painted window of this process). The helper itself serves the
// backend through helper/screenWiring.ts; this entry exists for the screen contract's Windows lane (helper/screen/contract/windowsLane.ts).

import { fail, OverseerError } from '../../protocol/index.js';
import { RpcPeer } from '../../rpc/rpcPeer.js';
import { StreamTransport } from '../../rpc/stdioTransport.js';
import { FdTransport } from '../rpc/fdTransport.js';
import type { CapturedImage, MouseButton, ScreenRect, ScrollDirection } from '../screen/screenBackend.js';
import { openWin32ScreenBackend, type Win32ScreenBackend } from '../screen/win32/win32Backend.js';
import { openTestWindow, type TestWindow } from './win32TestWindow.js';

const METHODS = [
  'capabilities',
  'capture',
  'captureWindow',
  'move',
  'button',
  'click',
  'scroll',
  'typeText',
  'key',
  'cursor',
  'windows',
  'focusedWindow',
  'close',
] as const;
type Method = (typeof METHODS)[number];
const MAX_INBOUND_FRAME = 1024 * 1024;

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const wire = (value: unknown): unknown =>
  value !== null && typeof value === 'object' && 'pixelFormat' in value
    ? { ...(value as CapturedImage), data: (value as CapturedImage).data.toString('base64') }
    : value;

/** Calls one method with the request's arguments (their checks are the backend's own). */
function invoke(b: Win32ScreenBackend, method: Method, a: unknown[]): Promise<unknown> {
  const n = (i: number): number => a[i] as number;
  switch (method) {
    case 'capabilities':
      return b.capabilities();
    case 'capture':
      return b.capture(a[0] as ScreenRect | undefined);
    case 'captureWindow':
      return b.captureWindow(String(a[0]));
    case 'move':
      return b.move(n(0), n(1));
    case 'button':
      return b.button(a[0] as MouseButton, a[1] as 'down' | 'up');
    case 'click':
      return b.click(n(0), n(1), a[2] as MouseButton, n(3));
    case 'scroll':
      return b.scroll(n(0), n(1), a[2] as ScrollDirection, n(3));
    case 'typeText':
      return b.typeText(String(a[0]));
    case 'key':
      return b.key(a[0] as string[], a[1] as 'tap' | 'down' | 'up');
    case 'cursor':
      return b.cursor();
    case 'windows':
      return b.windows();
    case 'focusedWindow':
      return b.focusedWindow();
    case 'close':
      return b.close();
  }
}

let backend: Win32ScreenBackend | undefined;
let testWindow: TestWindow | undefined;
let openError: OverseerError | undefined;
try {
  backend = openWin32ScreenBackend();
  log(`[screen-driver] ready: DPI ${backend.dpi.detail}`);
} catch (error) {
  openError = error instanceof OverseerError ? error : fail('capture_unavailable', String(error), { reason: 'open_failed' });
  log(`[screen-driver] the backend did not open: ${openError.message}`);
}

const transport =
  process.env['OVERSEER_HELPER_STDIO'] === 'fd'
    ? new FdTransport(MAX_INBOUND_FRAME, log)
    : new StreamTransport(process.stdin, process.stdout, MAX_INBOUND_FRAME);
const peer = new RpcPeer(
  transport,
  async (method, params) => {
    if (method === 'dpi') return backend?.dpi ?? null;
    // A window of this process that paints the canvas pattern (win32TestWindow.ts says why).
    if (method === 'openTestWindow') {
      const [x, y] = Array.isArray(params) ? (params as number[]) : [];
      testWindow?.close();
      testWindow = openTestWindow(x ?? 0, y ?? 0);
      return testWindow.hwnd;
    }
    if (!(METHODS as readonly string[]).includes(method)) throw fail('invalid_argument', `No screen method ${method}.`, { method });
    if (backend === undefined) throw openError ?? fail('capture_unavailable', 'The backend did not open.', { reason: 'open_failed' });
    const args = Array.isArray(params) ? (params as unknown[]) : [];
    return wire((await invoke(backend, method as Method, args)) ?? null);
  },
  log,
);
peer.onclose = () => {
  testWindow?.close();
  void (backend?.close() ?? Promise.resolve()).finally(() => process.exit(0));
};
peer.start();
