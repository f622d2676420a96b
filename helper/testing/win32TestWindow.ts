// A window of this process that paints the canvas fixture's pattern (e2e/fixtures/win32Canvas.c)
// when asked through WM_PRINTCLIENT, for the desktop test of window capture under Wine: Wine keeps
// GDI handles per process, so another process cannot paint into PrintWindow's DC there, but a
// window of our own can. A STATIC window subclassed with a JS window procedure; no message loop
// is needed, since PrintWindow sends WM_PRINT from this thread. Test support only: the backend never
// loads it.

import { createRequire } from 'node:module';
import type * as Koffi from 'koffi';

const W = 400;
const H = 300;
const WM_PRINTCLIENT = 0x0318;
const GWLP_WNDPROC = -4;
const WS_POPUP = 0x80000000;
const WS_VISIBLE = 0x10000000;
const HWND_BOTTOM = 1;
const SWP_NOSIZE_NOMOVE_NOACTIVATE = 0x0001 | 0x0002 | 0x0010;

type Fn = (...args: unknown[]) => unknown;

/** A painted test window; `close` destroys it. */
export interface TestWindow {
  hwnd: number;
  close(): void;
}

/** Opens the window at x, y (400x300), at the bottom of the z-order so other windows cover it. */
export function openTestWindow(x: number, y: number): TestWindow {
  const require = createRequire(import.meta.url);
  const koffi = require('koffi') as typeof Koffi;
  const u = koffi.load('user32.dll');
  const g = koffi.load('gdi32.dll');
  const f = (lib: Koffi.LibraryHandle, decl: string): Fn => lib.func(decl) as Fn;
  const proto = koffi.proto('intptr_t __stdcall OverseerTestWndProc(intptr_t hwnd, uint32_t msg, uintptr_t wp, intptr_t lp)');
  const CreateWindowExW = f(
    u,
    'intptr_t __stdcall CreateWindowExW(uint32_t ex, str16 cls, str16 title, uint32_t style, int x, int y, int w, int h, intptr_t parent, intptr_t menu, intptr_t inst, void *param)',
  );
  const SetWindowLongPtrW = f(u, 'intptr_t __stdcall SetWindowLongPtrW(intptr_t hwnd, int index, intptr_t value)');
  const CallWindowProcW = f(u, 'intptr_t __stdcall CallWindowProcW(intptr_t prev, intptr_t hwnd, uint32_t msg, uintptr_t wp, intptr_t lp)');
  const SetWindowPos = f(u, 'bool __stdcall SetWindowPos(intptr_t hwnd, intptr_t after, int x, int y, int w, int h, uint32_t flags)');
  const DestroyWindow = f(u, 'bool __stdcall DestroyWindow(intptr_t hwnd)');
  const FillRect = f(u, 'int __stdcall FillRect(intptr_t hdc, const uint8_t *rect, intptr_t brush)');
  const CreateSolidBrush = f(g, 'intptr_t __stdcall CreateSolidBrush(uint32_t colour)');
  const DeleteObject = f(g, 'bool __stdcall DeleteObject(intptr_t object)');
  const SetPixelV = f(g, 'bool __stdcall SetPixelV(intptr_t hdc, int x, int y, uint32_t colour)');

  const rgb = (r: number, gr: number, b: number): number => r | (gr << 8) | (b << 16);
  const paint = (hdc: unknown): void => {
    const colours = [rgb(255, 0, 0), rgb(0, 255, 0), rgb(0, 0, 255), rgb(255, 255, 0)];
    colours.forEach((colour, q) => {
      const rect = Buffer.alloc(16);
      [(q % 2) * (W / 2), Math.floor(q / 2) * (H / 2), ((q % 2) + 1) * (W / 2), (Math.floor(q / 2) + 1) * (H / 2)].forEach((v, i) =>
        rect.writeInt32LE(v, i * 4),
      );
      const brush = CreateSolidBrush(colour);
      FillRect(hdc, rect, brush);
      DeleteObject(brush);
    });
    const checker = (px: number, py: number): void => void SetPixelV(hdc, px, py, (px + py) % 2 === 0 ? rgb(0, 0, 0) : rgb(255, 255, 255));
    for (let px = 0; px < W; px++) [0, H - 1].forEach((py) => checker(px, py));
    for (let py = 1; py < H - 1; py++) [0, W - 1].forEach((px) => checker(px, py));
  };

  const hwnd = CreateWindowExW(0, 'STATIC', 'Overseer test window', WS_POPUP | WS_VISIBLE, x, y, W, H, 0, 0, 0, null) as number;
  if (hwnd === 0) throw new Error('CreateWindowExW(STATIC) failed');
  let previous: unknown = 0;
  const procedure = koffi.register((h: unknown, msg: number, wp: unknown, lp: unknown): unknown => {
    if (msg === WM_PRINTCLIENT) {
      paint(wp);
      return 0;
    }
    return CallWindowProcW(previous, h, msg, wp, lp);
  }, koffi.pointer(proto));
  previous = SetWindowLongPtrW(hwnd, GWLP_WNDPROC, procedure);
  SetWindowPos(hwnd, HWND_BOTTOM, 0, 0, 0, 0, SWP_NOSIZE_NOMOVE_NOACTIVATE);
  return {
    hwnd,
    close: () => {
      SetWindowLongPtrW(hwnd, GWLP_WNDPROC, previous);
      DestroyWindow(hwnd);
      koffi.unregister(procedure);
    },
  };
}
