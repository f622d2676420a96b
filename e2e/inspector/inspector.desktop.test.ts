import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { AgentGrant, PendingApproval, Receipt } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { CONTEXT_META } from '../../main/core/mcp/contextHandles.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import { UiClient, removeDataDir, serve, type Served } from '../../main/testing/serveHarness.js';
import { pinnedTool } from '../thirdParty/install.js';
import { Mcpdo, type CatalogEntry } from './mcpdo.js';

/*
 * A real third-party MCP client against the real `overseer serve`: the MCP Inspector's CLI
 * (`mcpdo`, pinned, on Node 22 where this Node is older) in both protocol eras, over HTTP and over
 * the `overseer mcp` stdio bridge. It lists, reads, acts once the person approves, and waits on
 * the pending receipt; over HTTP it also signs in with the MCP authorization flow, the consent
 * given on the card, and is then an agent of its own.
 */

interface CallResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
  _meta?: Record<string, unknown>;
}

/** A loopback port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the MCP Inspector CLI against overseer serve, in both eras', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let ui: UiClient;
  let mcpdo: Mcpdo;
  let credential: string;

  before(async () => {
    const tool = pinnedTool('inspector');
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '10'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    ui = await UiClient.connect(s);
    await ui.command('update_settings', { approval_wait_ms: 1000 });
    // The stdio entries are one agent the person gave its own credential (docs/agents.md#stdio-agents).
    credential = (await ui.command<{ credential: string }>('grant_stdio_agent', { name: 'Inspector over stdio' })).credential;
    const bridge = (era: 'legacy' | 'modern'): CatalogEntry => ({
      command: process.execPath,
      args: [`${REPO_ROOT}bin/overseer.mjs`, 'mcp', '--data-dir', s.dataDir],
      env: { OVERSEER_AGENT_CREDENTIAL: credential },
      protocolEra: era,
    });
    const http = (era: 'legacy' | 'modern'): CatalogEntry => ({
      type: 'http',
      url: s.mcpUrl,
      headers: { Authorization: `Bearer ${s.token}` },
      protocolEra: era,
    });
    mcpdo = await Mcpdo.start(
      tool,
      {
        'http-legacy': http('legacy'),
        'http-modern': http('modern'),
        'stdio-legacy': bridge('legacy'),
        'stdio-modern': bridge('modern'),
        'oauth-modern': { type: 'http', url: s.mcpUrl, protocolEra: 'modern' },
      },
      await freePort(),
    );
  });
  after(async () => {
    await mcpdo?.stop();
    ui?.close();
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  /** Connects an entry of the catalog; resolves with what `connect` printed. */
  const connect = (entry: string): Promise<Record<string, unknown>> => mcpdo.json(['connect', entry]);

  /**
   * Lists, activates, reads, acts (answered pending), and waits on the receipt while the person
   * approves, as an agent would drive `mcpdo`; a 2026-07-28 connection threads the context handle
   * its first call was given, where a 2025-11-25 one has its session.
   */
  async function drive(entry: string, era: 'legacy' | 'modern'): Promise<void> {
    const shown = await mcpdo.json<{ protocolEra?: string }>(['connections/show', entry]);
    assert.equal(shown.protocolEra, era, JSON.stringify(shown));
    let handle: string | undefined;
    const list = async (): Promise<string[]> => {
      const meta = handle !== undefined ? ['--metadata', `${CONTEXT_META}=${handle}`] : [];
      return (await mcpdo.json<{ tools: { name: string }[] }>(['--connection', entry, 'tools/list', ...meta])).tools.map((t) => t.name);
    };
    const call = async (name: string, args: Record<string, unknown> = {}): Promise<CallResult> => {
      const withContext = { ...args, ...(name === 'computer_use_activate' ? {} : { output: 'json' }), ...(handle !== undefined ? { context: handle } : {}) };
      // mcpdo lists the tools before it calls one and refuses a name it was not listed: in the
      // 2026-07-28 era that listing must carry the handle too, or it sees only the tools of no context.
      const meta = handle !== undefined ? ['--metadata', `${CONTEXT_META}=${handle}`] : [];
      const r = await mcpdo.json<CallResult>(['--connection', entry, 'tools/call', name, ...meta, '--tool-args-json', JSON.stringify(withContext)]);
      const minted = r._meta?.[CONTEXT_META];
      if (typeof minted === 'string') handle ??= minted;
      return r;
    };
    const answer = <T>(r: CallResult): T => (r.structuredContent ?? JSON.parse(r.content.find((c) => c.type === 'text')?.text ?? '{}')) as T;

    const idle = await list();
    assert.ok(idle.includes('computer_use_activate'), idle.join(', '));
    assert.ok(!idle.includes('window_list'), 'the desktop tools wait for computer_use_activate');
    const activated = await call('computer_use_activate', { tiers: ['accessibility'] });
    assert.notEqual(activated.isError, true, JSON.stringify(activated));
    assert.equal(typeof handle === 'string', era === 'modern', 'a context handle is minted in the 2026-07-28 era only');
    assert.ok((await list()).includes('element_act'), 'the activated tier is listed');
    const win = answer<{ windows: { window: string; title: string }[] }>(await call('window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window;
    assert.ok(win !== undefined, 'the fixture window is listed');
    const read = await call('window_read', { window: win, max_nodes: 50 });
    assert.notEqual(read.isError, true);
    assert.match(JSON.stringify(read), /counter/);
    const since = ui.mark();
    const acted = answer<Receipt>(await call('element_act', { window: win, selector: { automation_id: 'counter' }, action: 'invoke' }));
    assert.equal(acted.outcome, 'pending', JSON.stringify(acted));
    const pending = await ui.waitFor<PendingApproval[]>('pending', (cards) => cards.some((c) => c.receipt_id === acted.receipt_id), 15_000, since);
    const card = pending.find((c) => c.receipt_id === acted.receipt_id);
    assert.ok(card !== undefined);
    const waiting = call('action_wait', { receipt_id: acted.receipt_id });
    await ui.command('approve', { approval_id: card.approval_id });
    const final = answer<Receipt>(await waiting);
    assert.equal(final.outcome, 'completed', JSON.stringify(final));
  }

  for (const [entry, era, how] of [
    ['http-legacy', 'legacy', '2025-11-25 over HTTP with the shared token'],
    ['http-modern', 'modern', '2026-07-28 over HTTP with the shared token, threading its context handle'],
    ['stdio-legacy', 'legacy', '2025-11-25 over the overseer mcp bridge with its own credential'],
    ['stdio-modern', 'modern', '2026-07-28 over the overseer mcp bridge with its own credential'],
  ] as const)
    it(`connects in the ${how}: lists, reads, acts once approved and waits on the receipt`, async () => {
      const connected = await connect(entry);
      assert.equal(connected.pendingAuth, undefined, JSON.stringify(connected));
      await drive(entry, era);
      await mcpdo.json(['disconnect', entry]);
    });

  it('names both stdio eras by the grant the person made, whatever the Inspector calls itself', async () => {
    await connect('stdio-legacy');
    await connect('stdio-modern');
    await mcpdo.json(['--connection', 'stdio-modern', 'tools/call', 'computer_use_activate', '--tool-args-json', '{"tiers":["accessibility"]}']);
    const agents = await ui.waitFor<{ client: string; transport: string; claimed?: string }[]>(
      'agents',
      (list) => list.filter((a) => a.client === 'Inspector over stdio').length === 2,
      15_000,
    );
    const stdio = agents.filter((a) => a.transport === 'stdio');
    assert.deepEqual(
      stdio.map((a) => a.client),
      ['Inspector over stdio', 'Inspector over stdio'],
    );
    assert.ok(
      stdio.every((a) => a.claimed !== undefined && a.claimed !== 'Inspector over stdio'),
      `what the client called itself is kept as a claim: ${JSON.stringify(stdio)}`,
    );
    await mcpdo.json(['disconnect', 'stdio-legacy']);
    await mcpdo.json(['disconnect', 'stdio-modern']);
  });

  it('signs in with the MCP authorization flow: registers, waits for the person on the card, and is an agent of its own', async () => {
    const started = await connect('oauth-modern');
    assert.equal(started.pendingAuth, true, `a client with no credential is asked to sign in: ${JSON.stringify(started)}`);
    const authUrl = String(started.authUrl);
    assert.ok(authUrl.startsWith(`${s.origin}/oauth/authorize?`), authUrl);
    assert.match(authUrl, /code_challenge_method=S256/);
    // The person's browser opens the link; the authorize endpoint waits for the decision on the card.
    const since = ui.mark();
    const authorizing = fetch(authUrl, { redirect: 'manual' });
    const pending = await ui.waitFor<PendingApproval[]>('pending', (cards) => cards.some((c) => c.kind === 'agent_grant'), 15_000, since);
    const card = pending.find((c) => c.kind === 'agent_grant');
    assert.ok(card !== undefined && card.kind === 'agent_grant');
    assert.match(card.agent_grant.redirect_uri, /^http:\/\/127\.0\.0\.1:\d+\//, 'the card shows where the authorization goes back to');
    await ui.command('approve', { approval_id: card.approval_id });
    const redirected = await authorizing;
    assert.equal(redirected.status, 302);
    const back = redirected.headers.get('location') ?? '';
    assert.match(back, /[?&]code=/);
    // The browser follows the redirect to the Inspector's own loopback callback, which takes the code.
    const callback = await fetch(back);
    assert.ok(callback.ok, `the Inspector took the code: ${callback.status}`);
    await drive('oauth-modern', 'modern');
    const grants = await ui.waitFor<AgentGrant[]>('grants', (list) => list.some((g) => g.kind === 'oauth'), 15_000);
    const granted = grants.find((g) => g.kind === 'oauth');
    assert.ok(granted !== undefined && granted.last_used !== undefined, JSON.stringify(grants));
    // Revoked, it is refused from its next request on.
    await ui.command('revoke_grant', { id: granted.id });
    const refused = await mcpdo.run(['--format', 'json', '--connection', 'oauth-modern', 'tools/list']);
    process.stdout.write(`[inspector] after revoke: exit ${refused.code}: ${refused.stdout.slice(0, 400)}\n`);
    assert.notEqual(refused.code, 0, `a revoked client lists nothing: ${refused.stdout}${refused.stderr}`);
    assert.doesNotMatch(refused.stdout, /"computer_use_activate"/);
  });
});
