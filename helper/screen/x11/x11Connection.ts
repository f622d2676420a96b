// One connection to the X server through the `x11` package: connect, promise-wrapped requests, the
// round trip that proves the server processed everything sent so far, and the raw RandR 1.5
// GetMonitors request the package lacks.

import x11, { type Display, type Reply, type XClient } from 'x11';
import { fail } from '../../../protocol/index.js';

/** A connected client, its root window and the last error the server sent without a waiting request. */
export interface X11Connection {
  display: Display;
  X: XClient;
  root: number;
  lastAsyncError: () => Error | null;
}

/** Promise-wrap one request; the error counts as handled (no 'error' event). */
export function request<T>(send: (cb: Reply<T>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    send((error, result) => {
      if (error !== null && error !== undefined) reject(error);
      else resolve(result);
      return true;
    });
  });
}

/** Round trip: resolves once the server has processed every request sent before it. */
export function sync(X: XClient): Promise<void> {
  return request<unknown>((cb) => X.GetInputFocus(cb)).then(() => undefined);
}

/** Connect to `displayName` (default $DISPLAY); `no_interactive_desktop`-style failures become `reason`. */
export function connectX11(displayName: string | undefined, timeoutMs = 5000): Promise<X11Connection> {
  const target = displayName ?? process.env['DISPLAY'];
  if (target === undefined || target === '') {
    return Promise.reject(fail('capture_unavailable', 'No X display: DISPLAY is not set.', { reason: 'no_display' }));
  }
  return new Promise<X11Connection>((resolve, reject) => {
    let lastError: Error | null = null;
    const timer = setTimeout(
      () => reject(fail('capture_unavailable', `X display ${target} did not answer in ${timeoutMs} ms.`, { reason: 'connect_timeout' })),
      timeoutMs,
    );
    const client = x11.createClient({ display: target }, (error, display) => {
      clearTimeout(timer);
      if (error !== null && error !== undefined) {
        reject(fail('capture_unavailable', `Cannot connect to X display ${target}: ${error.message}`, { reason: 'connect_failed' }));
        return;
      }
      const screen = display.screen[0];
      if (screen === undefined) {
        reject(fail('capture_unavailable', `X display ${target} has no screen.`, { reason: 'no_screen' }));
        return;
      }
      resolve({ display, X: display.client, root: screen.root, lastAsyncError: () => lastError });
    });
    client.on('error', (error) => {
      lastError = error;
    });
  });
}

/** A monitor as RandR 1.5 GetMonitors answers it. */
export interface RawMonitor {
  nameAtom: number;
  primary: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** RRGetMonitors (RandR 1.5, minor opcode 42), sent raw: the package implements RandR up to 1.4. */
export function getMonitors(X: XClient, randrOpcode: number, root: number): Promise<RawMonitor[]> {
  return new Promise<RawMonitor[]>((resolve, reject) => {
    X.seq_num++;
    const b = Buffer.alloc(12);
    b[0] = randrOpcode;
    b[1] = 42;
    b.writeUInt16LE(3, 2);
    b.writeUInt32LE(root, 4);
    b[8] = 1; // get_active
    X.pack_stream.put(b);
    X.replies[X.seq_num] = [
      (buf: Buffer): RawMonitor[] => {
        const n = buf.readUInt32LE(4);
        const out: RawMonitor[] = [];
        let o = 24;
        for (let i = 0; i < n && o + 24 <= buf.length; i++) {
          const outputs = buf.readUInt16LE(o + 6);
          out.push({
            nameAtom: buf.readUInt32LE(o),
            primary: buf[o + 4] === 1,
            x: buf.readInt16LE(o + 8),
            y: buf.readInt16LE(o + 10),
            width: buf.readUInt16LE(o + 12),
            height: buf.readUInt16LE(o + 14),
          });
          o += 24 + 4 * outputs;
        }
        return out;
      },
      (error, result) => {
        if (error !== null && error !== undefined) reject(error);
        else resolve(result as RawMonitor[]);
        return true;
      },
    ];
    X.pack_stream.submit(true);
  });
}
