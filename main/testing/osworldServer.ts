// An OSWorld-compatible in-VM server for tests (docs/connections.md#osworld): the endpoints and
// answer shapes of OSWorld's `desktop_env/server/main.py`, on 127.0.0.1 at a random port, driving a
// private desktop instead of a VM. /execute runs the posted command as the real server does (argv,
// or a shell string with `shell: true`), answering {status, output, error, returncode} or
// 500 {status: "error", message}; the VM's `python` is /usr/bin/python3 with small pyautogui and
// pyperclip stand-ins (osworldVm/) on its path. /screenshot is a PNG, /accessibility `{"AT": xml}` of
// the AT-SPI tree as OSWorld writes it, /cursor_position a bare [x, y], /screen_size (POST)
// {width, height}, /platform the plain text "Linux". For the fail-closed tests it can answer 500 to
// everything, hang (accept and never answer), or stop in the middle of the next call, and serve a
// given PNG for /screenshot (a hostile VM's image), and lose the clipboard when the copying
// process ends (pyperclip's GTK mode); it counts every request it saw.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PrivateDesktop } from '../../desktop/privateDesktop.js';

const VM_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'osworldVm');
/** The real server's default /execute timeout, in seconds. */
const EXECUTE_TIMEOUT_S = 120;

/** How the server behaves: as OSWorld's does, or one of the failures the fail-closed tests need. */
export type OsworldServerMode = 'normal' | 'error500' | 'hang' | 'stop_mid_call';

export interface OsworldServer {
  url: string;
  /** Every request seen, in order ("POST /execute"). */
  readonly requests: string[];
  /** How many requests of this kind were seen ("POST /execute"). */
  count(request: string): number;
  /** From now on, behave so for every request, or only for requests of one kind ("POST /execute"). */
  setMode(mode: OsworldServerMode, only?: string): void;
  /**
   * How the VM's clipboard behaves for commands run from now on: `kept` (served after the copying
   * process ends, as with xclip) or `lost_on_exit` (pyperclip's GTK mode with no clipboard manager).
   */
  setClipboard(mode: 'kept' | 'lost_on_exit'): void;
  /** From now on, answer /screenshot with these bytes (a hostile VM's PNG); undefined: the desktop's own screen again. */
  serveScreenshot(png: Buffer | undefined): void;
  /** Resolves once the server stopped (after a `stop_mid_call`, or a stop()). */
  readonly stopped: Promise<void>;
  stop(): Promise<void>;
}

interface Ran {
  status: number;
  body: unknown;
}

/** Starts the server over `desktop` (its DISPLAY, session bus and accessibility bus). */
export async function startOsworldServer(desktop: PrivateDesktop): Promise<OsworldServer> {
  const bin = mkdtempSync(path.join(tmpdir(), 'overseer-osworld-vm-'));
  // The VM's `python` (what OSWorld's client runs) is the system Python, which has GTK and pyatspi.
  symlinkSync('/usr/bin/python3', path.join(bin, 'python'));
  symlinkSync('/usr/bin/python3', path.join(bin, 'python3'));
  const env: Record<string, string> = {
    ...desktop.env,
    PATH: `${bin}:${desktop.env['PATH'] ?? '/usr/bin:/bin'}`,
    PYTHONPATH: VM_DIR,
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const children = new Set<ChildProcess>();
  const sockets = new Set<Socket>();
  const requests: string[] = [];
  let mode: OsworldServerMode = 'normal';
  let modeOnly: string | undefined;
  let screenshot: Buffer | undefined;
  let markStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (markStopped = resolve));

  /** Runs a command like subprocess.run(capture, text, timeout): its output, or the exception's message. */
  const run = (
    command: string[] | string,
    shell: boolean,
    timeoutS: number,
    maxOut = 64 * 1024 * 1024,
  ): Promise<{ output: string; error: string; returncode: number }> =>
    new Promise((resolve, reject) => {
      const child =
        typeof command === 'string'
          ? spawn(command, { shell: shell ? '/bin/sh' : false, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
          : spawn(command[0] ?? '', command.slice(1), { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      children.add(child);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      child.stdout?.on('data', (b: Buffer) => {
        size += b.length;
        if (size <= maxOut) out.push(b);
      });
      child.stderr?.on('data', (b: Buffer) => err.push(b));
      const timer = setTimeout(() => {
        kill(child);
        reject(new Error(`Command '${String(command)}' timed out after ${timeoutS} seconds`));
      }, timeoutS * 1000);
      child.once('error', (e) => {
        clearTimeout(timer);
        children.delete(child);
        reject(e);
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        children.delete(child);
        resolve({
          output: Buffer.concat(out).toString('utf8'),
          error: Buffer.concat(err).toString('utf8'),
          returncode: code ?? (signal !== null ? -1 : 0),
        });
      });
    });

  const python = (script: string): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const child = spawn('/usr/bin/python3', [path.join(VM_DIR, script)], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      children.add(child);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.once('error', reject);
      child.once('close', (code) => {
        children.delete(child);
        if (code === 0) resolve(Buffer.concat(out));
        else reject(new Error(`${script} exited ${String(code)}: ${Buffer.concat(err).toString('utf8').slice(-500)}`));
      });
    });

  const handlers: Record<string, (body: Record<string, unknown>) => Promise<Ran | { png: Buffer } | { text: string }>> = {
    async 'POST /execute'(body) {
      const shell = body['shell'] === true;
      const command = body['command'] ?? (shell ? '' : []);
      const timeout = typeof body['timeout'] === 'number' ? body['timeout'] : EXECUTE_TIMEOUT_S;
      if (!(typeof command === 'string' || (Array.isArray(command) && command.every((c) => typeof c === 'string'))))
        return { status: 500, body: { status: 'error', message: 'command must be a string or a list of strings' } };
      const argv = typeof command === 'string' && !shell ? command.split(/\s+/).filter(Boolean) : command;
      const r = await run(argv, shell, timeout);
      return { status: 200, body: { status: 'success', output: r.output, error: r.error, returncode: r.returncode } };
    },
    async 'GET /screenshot'() {
      return { png: screenshot ?? (await python('screenshot.py')) };
    },
    async 'GET /accessibility'() {
      return { status: 200, body: { AT: (await python('a11y_tree.py')).toString('utf8') } };
    },
    async 'GET /cursor_position'() {
      const r = await run(['xdotool', 'getmouselocation', '--shell'], false, 10);
      const vals = new Map(
        r.output
          .split(/\s+/)
          .filter(Boolean)
          .map((l) => [l.split('=')[0] ?? '', l.split('=')[1] ?? ''] as const),
      );
      return { status: 200, body: [Number(vals.get('X')), Number(vals.get('Y'))] };
    },
    async 'POST /screen_size'() {
      const [width, height] = (await run(['xdotool', 'getdisplaygeometry'], false, 10)).output.trim().split(/\s+/).map(Number);
      return { status: 200, body: { width, height } };
    },
    'GET /platform': () => Promise.resolve({ text: 'Linux' }),
  };

  const server = http.createServer((req, res) => {
    const key = `${req.method ?? ''} ${(req.url ?? '').split('?')[0] ?? ''}`;
    requests.push(key);
    const chunks: Buffer[] = [];
    req.on('data', (b: Buffer) => chunks.push(b));
    req.on('end', () => {
      const failing = modeOnly === undefined || modeOnly === key ? mode : 'normal';
      if (failing === 'hang') return; // accepted, read, never answered
      if (failing === 'stop_mid_call') {
        void stop();
        return;
      }
      const send = (status: number, type: string, body: Buffer | string): void => {
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      };
      if (failing === 'error500') return send(500, 'application/json', JSON.stringify({ status: 'error', message: 'injected failure' }));
      const handler = handlers[key];
      if (handler === undefined) return send(404, 'text/html', '<h1>Not Found</h1>');
      let body: Record<string, unknown> = {};
      try {
        if (chunks.length > 0) body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        return send(400, 'text/html', '<h1>Bad Request</h1>');
      }
      handler(body).then(
        (r) => {
          if ('png' in r) send(200, 'image/png', r.png);
          else if ('text' in r) send(200, 'text/html; charset=utf-8', r.text);
          else send(r.status, 'application/json', JSON.stringify(r.body));
        },
        (e: unknown) => send(500, 'application/json', JSON.stringify({ status: 'error', message: e instanceof Error ? e.message : String(e) })),
      );
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      for (const s of sockets) s.destroy();
      for (const c of children) kill(c);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(bin, { recursive: true, force: true });
      markStopped();
    })();
    return stopping;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    count: (request) => requests.filter((r) => r === request).length,
    setMode: (m, only) => {
      mode = m;
      modeOnly = only;
    },
    setClipboard: (clipboard) => {
      if (clipboard === 'lost_on_exit') env['OVERSEER_TEST_CLIPBOARD'] = clipboard;
      else delete env['OVERSEER_TEST_CLIPBOARD'];
    },
    serveScreenshot: (png) => {
      screenshot = png;
    },
    stopped,
    stop,
  };
}

/** Ends a command and what it started (its own process group), by pid. */
function kill(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
