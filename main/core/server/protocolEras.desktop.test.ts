import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PendingApproval, Receipt } from '../../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { CONTEXT_META } from '../mcp/contextHandles.js';
import { REPO_ROOT } from '../runtime/paths.js';
import { UiClient, removeDataDir, serve, type Served } from '../../testing/serveHarness.js';

/** One agent as the test drives it, whichever SDK and era: list, call (JSON answers), close. */
interface Agent {
  list(): Promise<string[]>;
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; json: Record<string, unknown> }>;
  close(): Promise<void>;
}

type Answer = { isError?: boolean; structuredContent?: unknown; content: { type: string; text?: string }[] };

/** A tools/call result as the test reads it: its structured answer, or the JSON of its text (errors). */
function answered(r: Answer): { isError: boolean; json: Record<string, unknown> } {
  const text = r.content.find((c) => c.type === 'text')?.text ?? '{}';
  return { isError: r.isError === true, json: (r.structuredContent ?? JSON.parse(text)) as Record<string, unknown> };
}

/** A call's arguments asking for the JSON answer (computer_use_activate answers JSON anyway). */
const json = (name: string, args: Record<string, unknown>): Record<string, unknown> => (name === 'computer_use_activate' ? args : { ...args, output: 'json' });

const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

/** An SDK 1.x client (2025-11-25, one session). */
async function legacyAgent(transport: StreamableHTTPClientTransport | StdioClientTransport): Promise<Agent> {
  const client = new Client({ name: 'legacy-agent', version: '1.0.0' });
  await client.connect(transport);
  return {
    list: async () => (await client.listTools()).tools.map((t) => t.name),
    async call(name, args = {}) {
      const r = (await client.callTool({ name, arguments: json(name, args) }, undefined, { timeout: 60_000 })) as Answer;
      return answered(r);
    },
    close: () => client.close(),
  };
}

/** An SDK 2.x client pinned to 2026-07-28: no session, so it threads the context handle it was given. */
async function modernAgent(transport: ModernHttp | ModernStdio): Promise<Agent & { era(): string | undefined }> {
  const client = new ModernClient({ name: 'modern-agent', version: '1.0.0' }, MODERN);
  await client.connect(transport);
  let handle: string | undefined;
  return {
    era: () => client.getProtocolEra?.(),
    list: async () => (await client.listTools(handle === undefined ? {} : { _meta: { [CONTEXT_META]: handle } })).tools.map((t) => t.name),
    async call(name, args = {}) {
      const r = await client.callTool({ name, arguments: { ...json(name, args), ...(handle !== undefined ? { context: handle } : {}) } }, { timeout: 60_000 });
      const minted = (r._meta as Record<string, unknown> | undefined)?.[CONTEXT_META];
      if (typeof minted === 'string') handle ??= minted;
      return answered(r as Answer);
    },
    close: () => client.close(),
  };
}

const bridge = (s: Served): { command: string; args: string[]; cwd: string; env: Record<string, string>; stderr: 'pipe' } => ({
  command: process.execPath,
  args: ['bin/overseer.mjs', 'mcp', '--data-dir', s.dataDir],
  cwd: REPO_ROOT,
  env: { ...process.env } as Record<string, string>,
  stderr: 'pipe',
});

describe('both MCP protocol eras on both transports', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let ui: UiClient;

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '10'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    ui = await UiClient.connect(s);
    await ui.command('update_settings', { approval_wait_ms: 1000 });
  });
  after(async () => {
    ui?.close();
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  /** Lists, activates, reads, acts (answered pending), waits on the receipt while the person approves. */
  async function drive(agent: Agent): Promise<void> {
    const idle = await agent.list();
    assert.ok(idle.includes('computer_use_activate'), idle.join(', '));
    assert.ok(!idle.includes('window_list'));
    const activated = await agent.call('computer_use_activate', { tiers: ['accessibility'] });
    assert.equal(activated.isError, false, JSON.stringify(activated.json));
    assert.ok((await agent.list()).includes('element_act'), 'the activated tier is listed');
    const windows = (await agent.call('window_list')).json as { windows: { window: string; title: string }[] };
    const win = windows.windows.find((w) => w.title === 'Overseer Fixture')?.window;
    assert.ok(win !== undefined);
    const read = await agent.call('window_read', { window: win, max_nodes: 50 });
    assert.equal(read.isError, false);
    assert.match(JSON.stringify(read.json), /counter/);
    const since = ui.mark();
    const first = (await agent.call('element_act', { window: win, selector: { automation_id: 'counter' }, action: 'invoke' })).json as Receipt;
    assert.equal(first.outcome, 'pending');
    const pending = await ui.waitFor<PendingApproval[]>('pending', (list) => list.some((p) => p.receipt_id === first.receipt_id), 15_000, since);
    const card = pending.find((p) => p.receipt_id === first.receipt_id);
    const waiting = agent.call('action_wait', { receipt_id: first.receipt_id });
    await ui.command('approve', { approval_id: card?.approval_id });
    const final = (await waiting).json as Receipt;
    assert.equal(final.outcome, 'completed');
  }

  it('serves an SDK 1.x client (2025-11-25) over HTTP as before', async () => {
    const agent = await legacyAgent(new StreamableHTTPClientTransport(new URL(s.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
    try {
      await drive(agent);
    } finally {
      await agent.close();
    }
  });

  it('serves an SDK 1.x client (2025-11-25) over the stdio bridge as before', async () => {
    const agent = await legacyAgent(new StdioClientTransport(bridge(s)));
    try {
      await drive(agent);
    } finally {
      await agent.close();
    }
  });

  it('serves an SDK 2.x client pinned to 2026-07-28 over HTTP, with a context handle instead of a session', async () => {
    const agent = await modernAgent(new ModernHttp(new URL(s.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
    try {
      assert.equal(agent.era(), 'modern');
      await drive(agent);
    } finally {
      await agent.close();
    }
  });

  it('serves an SDK 2.x client pinned to 2026-07-28 over the stdio bridge', async () => {
    const agent = await modernAgent(new ModernStdio(bridge(s)));
    try {
      assert.equal(agent.era(), 'modern');
      await drive(agent);
    } finally {
      await agent.close();
    }
  });

  it('refuses a modern request without the bearer token, and a handle it never minted', async () => {
    const unauthenticated = new ModernClient({ name: 'no-token', version: '1.0.0' }, MODERN);
    await assert.rejects(unauthenticated.connect(new ModernHttp(new URL(s.mcpUrl))));
    const agent = await modernAgent(new ModernHttp(new URL(s.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
    try {
      const forged = await agent.call('window_list', { context: 'ctx_never_minted_here_0' });
      assert.equal(forged.isError, true);
      assert.equal((forged.json as { error: { code: string } }).error.code, 'snapshot_unknown');
    } finally {
      await agent.close();
    }
  });
});
