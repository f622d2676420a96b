import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PendingApproval } from '../../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../runtime/paths.js';
import { UiClient, activateTiers, removeDataDir, serve, tool, type Served } from '../../testing/serveHarness.js';

/** A real SDK client whose fetch notes the content type of every answer to a tools/call. */
async function recordingClient(s: Served): Promise<{ client: Client; answers: { id: unknown; type: string }[] }> {
  const answers: { id: unknown; type: string }[] = [];
  const fetchNoting = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(url, init);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { id?: unknown; method?: string }) : undefined;
    if (body?.method === 'tools/call') answers.push({ id: body.id, type: response.headers.get('content-type') ?? '' });
    return response;
  };
  const client = new Client({ name: 'answer-mode-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(s.mcpUrl), { fetch: fetchNoting, requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }),
  );
  await activateTiers(client);
  answers.length = 0;
  await client.listTools();
  return { client, answers };
}

describe('MCP over HTTP: plain JSON answers, SSE when a call asks for progress', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let ui: UiClient;
  let win: string;

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '10'], { waitForWindow: 'Overseer Fixture' });
    s = await serve({ ...desktop.env, OVERSEER_PROGRESS_INTERVAL_MS: '100' });
    ui = await UiClient.connect(s);
  });
  after(async () => {
    ui?.close();
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('answers a call that asks for no progress as one application/json body', async () => {
    const { client, answers } = await recordingClient(s);
    try {
      const list = await tool(client, 'window_list', { output: 'json' });
      win = (JSON.parse(list.text) as { windows: { window: string; title: string }[] }).windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
      assert.notEqual(win, '');
      const read = await tool(client, 'window_read', { window: win });
      assert.equal(read.isError, false);
      assert.match(read.text, /Overseer Fixture/);
      assert.deepEqual(
        answers.map((a) => a.type.split(';')[0]),
        ['application/json', 'application/json'],
      );
    } finally {
      await client.close();
    }
  });

  it('streams progress to a call that asks for it while calls beside it in the same session get JSON', async () => {
    const { client, answers } = await recordingClient(s);
    try {
      const seen: number[] = [];
      const since = ui.mark();
      const acting = client.callTool({ name: 'element_act', arguments: { window: win, selector: { automation_id: 'counter' }, action: 'invoke' } }, undefined, {
        timeout: 60_000,
        onprogress: (p) => seen.push(p.progress),
      });
      const card = await ui.waitFor<PendingApproval[]>(
        'pending',
        (list) => list.some((p) => p.kind === 'element' && p.target.automation_id === 'counter'),
        15_000,
        since,
      );
      // Reads while the act waits: each is answered on its own, as JSON, and the act keeps its stream.
      for (let i = 0; i < 3; i++) assert.equal((await tool(client, 'window_read', { window: win, max_nodes: 20 })).isError, false);
      for (let i = 0; i < 100 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      const approval = card.find((p) => p.kind === 'element' && p.target.automation_id === 'counter')?.approval_id;
      await ui.command('approve', { approval_id: approval });
      const receipt = (await acting) as { structuredContent?: { outcome?: string }; isError?: boolean };
      assert.notEqual(receipt.isError, true);
      assert.equal(receipt.structuredContent?.outcome, 'completed');
      assert.ok(seen.length >= 2, `${seen.length} progress notifications while waiting`);
      const types = answers.map((a) => a.type.split(';')[0]);
      assert.deepEqual(types, ['text/event-stream', 'application/json', 'application/json', 'application/json']);
    } finally {
      await client.close();
    }
  });
});
