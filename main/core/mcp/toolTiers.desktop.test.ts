// The default tool surface and ambiguous selectors through the real server, helper and fixture app,
// with the real MCP SDK client (docs/tools.md#progressive-tools, docs/tools.md#ambiguous-selectors).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { SCREEN_TOOL_NAMES, QUESTION_HANDOFF_TOOL_NAMES, ACCESSIBILITY_TOOL_NAMES, type Element, type Receipt } from '../../../protocol/index.js';
import { httpClient, removeDataDir, serve, tool, toolJson, type Served } from '../../testing/serveHarness.js';
import { REPO_ROOT } from '../runtime/paths.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
/** The most the default tools/list may weigh, in bytes (docs/tools.md#progressive-tools). */
const DEFAULT_BOUND = 20_000;

type Candidate = Element & { nth: number };

describe('the default tool surface and ambiguous selectors, through the real server', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let agent: Client;
  let win: string;

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '30'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    agent = await httpClient(s);
    const list = await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list');
    win = list.windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
    assert.notEqual(win, '');
  });
  after(async () => {
    await agent?.close().catch(() => {});
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('an idle agent lists only what it needs to start, well under 20 kB', async () => {
    const idle = await httpClient(s, 'idle-agent', { tiers: [] });
    try {
      const listed = await idle.listTools();
      const bytes = Buffer.byteLength(JSON.stringify(listed), 'utf8');
      console.log(`# idle tools/list: ${listed.tools.length} tool(s), ${bytes} bytes`);
      assert.deepEqual(
        listed.tools.map((t) => t.name),
        ['computer_use_activate', ...QUESTION_HANDOFF_TOOL_NAMES],
      );
      assert.ok(bytes <= DEFAULT_BOUND, `${bytes} bytes`);
    } finally {
      await idle.close();
    }
  });

  it('activation lists the tier’s tools and the client is told the list changed', async () => {
    const late = await httpClient(s, 'activating-agent', { tiers: [] });
    let changes = 0;
    late.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    const changed = async (n: number): Promise<void> => {
      for (let i = 0; i < 200 && changes < n; i++) await sleep(20);
      assert.equal(changes, n, 'tools/list_changed reached the SDK client');
    };
    try {
      const a = await tool(late, 'computer_use_activate', { tiers: ['accessibility'] });
      assert.deepEqual(a.structured, {
        activated: ['computer_use_activate', ...QUESTION_HANDOFF_TOOL_NAMES, ...ACCESSIBILITY_TOOL_NAMES],
        tiers: ['accessibility'],
      });
      await changed(1);
      assert.deepEqual(
        (await late.listTools()).tools.map((t) => t.name),
        ['computer_use_activate', ...QUESTION_HANDOFF_TOOL_NAMES, ...ACCESSIBILITY_TOOL_NAMES],
      );
      const b = await tool(late, 'computer_use_activate', { tiers: ['screen'] });
      assert.deepEqual((b.structured as { tiers: string[] }).tiers, ['accessibility', 'screen']);
      await changed(2);
      const all = await late.listTools();
      assert.deepEqual(
        all.tools.map((t) => t.name),
        ['computer_use_activate', ...QUESTION_HANDOFF_TOOL_NAMES, ...ACCESSIBILITY_TOOL_NAMES, ...SCREEN_TOOL_NAMES],
      );
      console.log(`# tools/list with both tiers: ${Buffer.byteLength(JSON.stringify(all), 'utf8')} bytes`);
      // Asking again for what is active changes nothing, and says so by sending nothing.
      await tool(late, 'computer_use_activate', { tiers: ['accessibility'] });
      await sleep(200);
      assert.equal(changes, 2);
      assert.equal((await tool(late, 'window_list')).isError, false);
    } finally {
      await late.close();
    }
  });

  it('a tool of an inactive tier answers a typed error saying what to activate; a tier that does not exist activates nothing', async () => {
    const idle = await httpClient(s, 'inactive-agent', { tiers: [] });
    try {
      const read = await toolJson(idle, 'window_read', { window: win });
      assert.equal(read.error?.code, 'invalid_argument');
      assert.deepEqual(read.error?.data, {
        reason: 'tier_inactive',
        tier: 'accessibility',
        activate: { tool: 'computer_use_activate', arguments: { tiers: ['accessibility'] } },
      });
      const text = await tool(idle, 'screenshot');
      assert.equal(text.isError, true);
      assert.match(text.text, /^error invalid_argument: screenshot is in the "screen" tier.*computer_use_activate \{"tiers": \["screen"\]\}/);
      const unknownTier = await tool(idle, 'computer_use_activate', { tiers: ['accessibility', 'everything'] });
      assert.equal(unknownTier.isError, true);
      assert.deepEqual(
        (await idle.listTools()).tools.map((t) => t.name),
        ['computer_use_activate', ...QUESTION_HANDOFF_TOOL_NAMES],
        'a refused activation activated nothing',
      );
      const unknown = await tool(idle, 'computer_use_activate', { tiers: ['everything'] });
      assert.match(unknown.text, /^error invalid_argument/);
    } finally {
      await idle.close();
    }
  });

  it('an ambiguous selector answers the match count and the candidates, in text and JSON, and never picks', async () => {
    const json = await toolJson<Receipt>(agent, 'element_act', { window: win, selector: { name: 'Duplicate' }, action: 'invoke' });
    assert.equal(json.outcome, 'refused');
    assert.equal(json.refusal?.code, 'ambiguous');
    const data = json.refusal?.data as { match_count: number; candidates: Candidate[]; truncated: boolean };
    assert.ok(data.match_count > 1, JSON.stringify(data));
    assert.equal(data.candidates.length, Math.min(data.match_count, 10));
    assert.equal(data.truncated, data.match_count > 10);
    for (const [i, c] of data.candidates.entries()) {
      assert.equal(c.nth, i);
      assert.equal(c.role, 'button');
      assert.equal(c.name, 'Duplicate');
      assert.ok(c.rect !== undefined && c.rect.w > 0, 'each candidate says where it is');
      assert.match(c.target ?? '', /^T/, 'with a window named, each candidate carries a target');
      assert.equal(c.digest, undefined);
    }
    assert.deepEqual(
      data.candidates.map((c) => c.automation_id),
      [...new Set(data.candidates.map((c) => c.automation_id))],
      'the candidates are distinct elements',
    );

    const text = await tool(agent, 'element_act', { window: win, selector: { name: 'Duplicate' }, action: 'invoke' });
    assert.match(text.text, new RegExp(`refused: ambiguous: ${data.match_count} elements match`));
    assert.match(text.text, new RegExp(`candidates \\(${data.candidates.length} of ${data.match_count}\\):`));
    assert.match(text.text, /\n {2}nth 0: button "Duplicate" #\S+ \[invoke\] ~T\S+ @\d+,\d+ \d+x\d+/);

    // A candidate's target acts on exactly that element (focus is view-only: no person is asked).
    const second = data.candidates[1] as Candidate;
    const focused = await toolJson<Receipt>(agent, 'element_act', { target: second.target, action: 'focus' });
    assert.equal(focused.outcome, 'completed', JSON.stringify(focused));
    assert.equal(focused.target?.automation_id, second.automation_id);
  });

  it('a selector matching more than ten elements lists ten candidates and says the list is cut', async () => {
    const r = await toolJson<Receipt>(agent, 'element_act', { window: win, selector: { name_contains: 'Row ' }, action: 'invoke' });
    const data = r.refusal?.data as { match_count: number; candidates: Candidate[]; truncated: boolean };
    assert.equal(r.refusal?.code, 'ambiguous');
    assert.ok(data.match_count > 10, `the fixture's list has ${data.match_count} rows`);
    assert.equal(data.candidates.length, 10);
    assert.equal(data.truncated, true);
    const text = await tool(agent, 'element_act', { window: win, selector: { name_contains: 'Row ' }, action: 'invoke' });
    assert.match(text.text, new RegExp(`candidates \\(10 of ${data.match_count}; ${data.match_count - 10} more not listed: narrow the selector\\):`));
    // Without a window the candidates carry no targets (as element_find's matches), but their nth picks them.
    const unscoped = await toolJson<Receipt>(agent, 'element_act', { selector: { name_contains: 'Row ' }, action: 'invoke' });
    assert.equal(unscoped.refusal?.code, 'ambiguous', 'the fixture is the foreground window');
    const loose = (unscoped.refusal?.data as { candidates: Candidate[] }).candidates;
    assert.equal(loose.length, 10);
    assert.ok(loose.every((c, i) => c.target === undefined && c.nth === i));
  });
});
