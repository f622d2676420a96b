import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import WebSocket from 'ws';
import { REPO_ROOT } from '../core/runtime/paths.js';
import type { TestTargets } from './serveWithTargets.js';
import {
  applyDelta,
  type Tier,
  type HeldApproval,
  type HeldDelta,
  type PendingApproval,
  type PendingDelta,
  type UiFrame,
  type UiSnapshot,
} from '../../protocol/index.js';

/** A running `overseer serve` for tests: its URLs, token, data folder and output. */
export interface Served {
  child: ChildProcess;
  /** The one-time sign-in link serve printed (works once). */
  uiUrl: string;
  /** The server's origin, e.g. http://127.0.0.1:40123. */
  origin: string;
  mcpUrl: string;
  /** The agent credential. */
  token: string;
  dataDir: string;
  /** The person's UI cookie (`name=value`), got once by following the printed link like a browser. */
  uiCookie(): Promise<string>;
  stderr(): string;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Follows a sign-in link like a browser and returns the cookie it sets (`name=value`). */
export async function signIn(link: string): Promise<string> {
  const r = await fetch(link, { redirect: 'manual' });
  const set = r.headers.get('set-cookie');
  if (r.status !== 303 || set === null) throw new Error(`signing in with ${link} answered ${r.status}`);
  return set.split(';')[0] ?? '';
}

/** How a test starts serve. */
export interface ServeOptions {
  /** The data folder; a new temporary one when absent. */
  dataDir?: string;
  /** The agent token; a fixed test token when absent. */
  token?: string;
  /** More flags for serve, e.g. the port of the serve this one replaces. */
  extra?: string[];
  /** The UI cookie the caller already holds for this data folder, instead of signing in again. */
  cookie?: string;
  /** Arguments for node itself, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** A test's connection targets: serve is then started through main/testing/serveWithTargets.ts instead of bin/overseer.mjs. */
  targets?: TestTargets;
}

/** Starts `node bin/overseer.mjs serve --port 0` with the given desktop environment. */
export async function serve(env: Record<string, string | undefined>, options: ServeOptions = {}): Promise<Served> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'overseer-data-')));
  const token = options.token ?? 'test-token-0123456789abcdef';
  const entry = options.targets === undefined ? ['bin/overseer.mjs', 'serve'] : ['--import', 'tsx', 'main/testing/serveWithTargets.ts', options.targets];
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), ...entry, '--port', '0', '--data-dir', dataDir, '--token', token, ...(options.extra ?? [])],
    {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${err}`)), 30_000);
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString('utf8');
      if (out.includes('MCP: ')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}:\n${err}`)));
  });
  const uiUrl = /Overseer UI: (\S+)/.exec(out)?.[1] ?? '';
  const mcpUrl = /MCP: (\S+)/.exec(out)?.[1] ?? '';
  let cookie: Promise<string> | undefined = options.cookie === undefined ? undefined : Promise.resolve(options.cookie);
  return {
    child,
    uiUrl,
    origin: new URL(mcpUrl).origin,
    mcpUrl,
    token,
    dataDir,
    uiCookie: () => (cookie ??= signIn(uiUrl)),
    stderr: () => err,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Removes a data folder made by serve(). */
export async function removeDataDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Every tier, as a test agent activates them unless it says otherwise. */
export const ALL_TIERS: readonly Tier[] = ['accessibility', 'screen'];

/**
 * Activates tiers on a connected client (progressive exposure is on by default,
 * docs/tools.md#progressive-tools): an agent that does not call computer_use_activate lists only it.
 */
export async function activateTiers(client: Client, tiers: readonly Tier[] = ALL_TIERS): Promise<void> {
  if (tiers.length === 0) return;
  const r = await client.callTool({ name: 'computer_use_activate', arguments: { tiers: [...tiers] } });
  if (r.isError === true) throw new Error(`computer_use_activate answered an error: ${JSON.stringify(r.content)}`);
}

/**
 * An MCP SDK client over Streamable HTTP with the bearer token, with `tiers` activated (default
 * every tier; `[]` leaves it idle). It lists the tools then, so the SDK validates every answer's
 * structuredContent against its tool's outputSchema from then on: every desktop test that calls a
 * tool is evidence that real answers match their schemas.
 */
export async function httpClient(s: Pick<Served, 'mcpUrl' | 'token'>, name = 'test-agent', options: { tiers?: readonly Tier[] } = {}): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(s.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
  await activateTiers(client, options.tiers);
  await client.listTools();
  return client;
}

/** A tool's answer as the tests read it: its text, whether it was an error, and its structuredContent. */
export interface ToolAnswer {
  text: string;
  isError: boolean;
  structured: Record<string, unknown> | undefined;
}

/**
 * Calls a tool and returns its text (and whether it was an error). Every successful answer must
 * carry structuredContent (the SDK has already validated it when the tool was listed), and an
 * error none; with `output: "json"` the text is that same structured answer.
 */
export async function tool(client: Client, name: string, args: Record<string, unknown> = {}, options: { timeout?: number } = {}): Promise<ToolAnswer> {
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout: options.timeout ?? 60_000 });
  const content = r.content as { type: string; text?: string }[];
  const text = content.map((c) => c.text ?? '').join('\n');
  const isError = r.isError === true;
  const structured = r.structuredContent as Record<string, unknown> | undefined;
  if (isError && structured !== undefined) throw new Error(`${name}: an error answer carried structuredContent`);
  if (!isError && structured === undefined) throw new Error(`${name}: a successful answer carried no structuredContent`);
  if (!isError && args['output'] === 'json' && !isDeepStrictEqual(JSON.parse(text), structured))
    throw new Error(`${name}: output json and structuredContent differ`);
  return { text, isError, structured };
}

/** Calls a tool with output json and parses the answer. */
export async function toolJson<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options: { timeout?: number } = {},
): Promise<T & { error?: { code: string; detail: string; data?: Record<string, unknown> } }> {
  const r = await tool(client, name, { ...args, output: 'json' }, options);
  return JSON.parse(r.text) as T & { error?: { code: string; detail: string } };
}

/** A UI channel client over the WebSocket. */
export class UiClient {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly events: { event: string; data: unknown }[] = [];
  private readonly listeners = new Set<() => void>();

  /** The queue as the UI knows it, rebuilt from the snapshot and its deltas. */
  pending: PendingApproval[] = [];
  held: HeldApproval[] = [];
  /** Bytes of every frame received, in order (the UI channel's cost). */
  readonly frameBytes: number[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.frameBytes.push(data.length);
      const frame = JSON.parse(data.toString('utf8')) as UiFrame;
      if (frame.type === 'event') {
        this.events.push({ event: frame.event, data: frame.data });
        // Tests wait for the whole list: each delta is followed by a 'pending' (or 'held') entry holding the list it makes.
        if (frame.event === 'snapshot' || frame.event === 'pending_delta') {
          const snap = frame.data as UiSnapshot;
          this.pending = frame.event === 'snapshot' ? snap.pending : applyDelta(this.pending, frame.data as PendingDelta);
          this.events.push({ event: 'pending', data: this.pending });
        }
        if (frame.event === 'snapshot' || frame.event === 'held_delta') {
          this.held = frame.event === 'snapshot' ? (frame.data as UiSnapshot).held : applyDelta(this.held, frame.data as HeldDelta);
          this.events.push({ event: 'held', data: this.held });
        }
      } else if (frame.type === 'result') this.waiting.get(frame.id)?.resolve(frame.result);
      else if (frame.type === 'error')
        this.waiting.get(frame.id)?.reject(Object.assign(new Error(`${frame.error.code}: ${frame.error.detail}`), { code: frame.error.code }));
      for (const l of this.listeners) l();
    });
  }

  /** Connects as the person's UI: this origin, with the UI cookie. */
  static async connect(s: Pick<Served, 'origin' | 'uiCookie'>): Promise<UiClient> {
    const ws = new WebSocket(`${s.origin.replace(/^http/, 'ws')}/ui`, { headers: { origin: s.origin, cookie: await s.uiCookie() } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new UiClient(ws);
  }

  command<T = unknown>(command: string, params: unknown = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: (v) => resolve(v as T), reject });
      this.ws.send(JSON.stringify({ type: 'command', id, command, params }));
    });
  }

  /** The position of the next event (for waitFor's `since`). */
  mark(): number {
    return this.events.length;
  }

  /** Waits for the latest event of a kind that satisfies `test`, among those from position `since` on. */
  waitFor<T = unknown>(event: string, test: (data: T) => boolean, timeoutMs = 15_000, since = 0): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        for (let i = this.events.length - 1; i >= since; i--) {
          const e = this.events[i];
          if (e?.event === event && test(e.data as T)) {
            this.listeners.delete(check);
            clearTimeout(timer);
            resolve(e.data as T);
            return true;
          }
        }
        return false;
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`no ${event} event matched within ${timeoutMs} ms`));
      }, timeoutMs);
      if (!check()) this.listeners.add(check);
    });
  }

  close(): void {
    this.ws.close();
  }
}
