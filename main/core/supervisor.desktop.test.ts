import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import {
  SCREEN_INPUT_TOOLS,
  SCREEN_TOOL_NAMES,
  QUESTION_HANDOFF_TOOL_NAMES,
  ACCESSIBILITY_TOOL_NAMES,
  type Element,
  type CardKind,
  type PendingApproval,
  type Receipt,
  type ScreenToolName,
  type UiSnapshot,
  type WindowReadAnswer,
} from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from './runtime/paths.js';
import { FixtureDriver } from '../testing/fixtureDriver.js';
import { UiClient, activateTiers, httpClient, removeDataDir, serve, tool, toolJson, type Served } from '../testing/serveHarness.js';
import { exportJournal, verifyJournal } from './journal/index.js';
import { cardIs, type CardOf } from '../testing/cards.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;

describe('overseer serve: MCP, approvals, brakes and the journal on the real desktop', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let agent: Client;
  let ui: UiClient;
  let driver: FixtureDriver;
  let win: string;

  let since = 0;
  /** A pending card that appeared after the last act() began (older cards were already answered). */
  const pendingCard = <K extends CardKind>(kind: K, test?: (p: CardOf<K>) => boolean): Promise<CardOf<K>> => {
    const is = cardIs(kind, test);
    return ui.waitFor<PendingApproval[]>('pending', (list) => list.some(is), 15_000, since).then((list) => list.find(is) as CardOf<K>);
  };
  const act = (args: Record<string, unknown>): Promise<Receipt & { error?: { code: string } }> => {
    since = ui.mark();
    return toolJson<Receipt>(agent, 'element_act', { window: win, ...args }, { timeout: 120_000 });
  };

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '30'], { waitForWindow: 'Overseer Fixture' });
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '700', '--title', 'Long Fixture'], { waitForWindow: 'Long Fixture' });
    s = await serve({ ...desktop.env, OVERSEER_PROGRESS_INTERVAL_MS: '200' });
    agent = await httpClient(s);
    ui = await UiClient.connect(s);
    driver = await FixtureDriver.connect(desktop.a11yBusAddress);
    const list = await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list');
    win = list.windows.find((w) => w.title === 'Overseer Fixture')?.window ?? '';
  });
  after(async () => {
    driver?.close();
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('lists the five accessibility tools and the screen tier with their annotations and strict schemas', async () => {
    const { tools } = await agent.listTools();
    assert.deepEqual(
      tools.map((t) => t.name).sort(),
      ['computer_use_activate', ...ACCESSIBILITY_TOOL_NAMES, ...SCREEN_TOOL_NAMES, ...QUESTION_HANDOFF_TOOL_NAMES].sort(),
    );
    for (const t of tools) {
      // computer_ctrl can hand the desktop over (not read-only), which changes no application (not destructive).
      const readOnly = t.name !== 'element_act' && t.name !== 'computer_ctrl' && !SCREEN_INPUT_TOOLS.has(t.name as ScreenToolName);
      assert.equal(t.annotations?.readOnlyHint, readOnly, t.name);
      if (!readOnly) assert.equal(t.annotations?.destructiveHint, t.name !== 'computer_ctrl');
      assert.equal((t.inputSchema as { additionalProperties?: boolean }).additionalProperties, false, `${t.name} refuses unknown fields`);
      assert.ok((t.description ?? '').length > 40);
      assert.equal(t.outputSchema?.type, 'object', `${t.name} declares its answer`);
      // A union of answers (action_wait, computer_ctrl) closes each of its alternatives.
      const defs = (t.outputSchema['$defs'] ?? {}) as Record<string, Record<string, unknown>>;
      const alternatives = ((t.outputSchema['anyOf'] as Record<string, unknown>[] | undefined) ?? [t.outputSchema]).map((a) =>
        typeof a['$ref'] === 'string' ? (defs[a['$ref'].slice('#/$defs/'.length)] ?? {}) : a,
      );
      for (const a of alternatives) assert.equal(a['additionalProperties'], false, `${t.name}'s answer has no undeclared fields`);
    }
  });

  it('every answer carries structuredContent the SDK client validated against its outputSchema: cut reads, finds, refusals', async () => {
    // tool() answers in compact text; the client has listed the tools, so it validated each structuredContent.
    const read = async (args: Record<string, unknown>): Promise<WindowReadAnswer> => {
      const r = await tool(agent, 'window_read', args);
      assert.equal(r.isError, false, r.text);
      assert.ok(!r.text.startsWith('{'), 'the model still reads the compact text');
      return r.structured as unknown as WindowReadAnswer;
    };
    const long = (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find(
      (w) => w.title === 'Long Fixture',
    )?.window;
    assert.ok(long !== undefined);
    assert.ok((await read({ window: long, max_nodes: 5 })).truncated_by.includes('max_nodes'));
    assert.ok((await read({ window: long, format: 'flat', max_depth: 1 })).truncated_by.includes('max_depth'));
    assert.ok((await read({ window: win, max_text_chars: 2 })).truncated_by.includes('max_text'));
    assert.ok((await read({ window: long, max_tokens: 100 })).truncated_by.includes('max_tokens'));
    assert.ok((await read({ window: long, max_children_per_node: 2 })).truncated_by.includes('max_children'));
    const untargeted = await read({});
    assert.equal(untargeted.mode, 'full');
    const finds: [Record<string, unknown>, (a: Record<string, unknown>) => boolean][] = [
      [{ window: win, selector: { automation_id: 'counter' } }, (a) => a['match_count'] === 1],
      [{ window: win, selector: { name: 'No Such Element Anywhere' } }, (a) => a['match_count'] === 0 && a['searched_whole_window'] === true],
      [{ window: win, selector: { name: 'Duplicate' } }, (a) => (a['match_count'] as number) > 1],
      [{ selector: { automation_id: 'counter' } }, (a) => typeof a['match_count'] === 'number'],
    ];
    for (const [args, ok] of finds) {
      const r = await tool(agent, 'element_find', args);
      assert.ok(r.structured !== undefined && ok(r.structured), `${JSON.stringify(args)}: ${r.text}`);
    }
    for (const [args, code] of [
      [{ selector: { name: 'Duplicate' }, action: 'invoke' }, 'ambiguous'],
      [{ selector: { automation_id: 'status' }, action: 'toggle' }, 'pattern_unsupported'],
      [{ selector: { automation_id: 'nothing_here' }, action: 'invoke' }, 'not_found'],
      [{ target: 'Tnotarealhandl', action: 'invoke' }, 'snapshot_unknown'],
    ] as const) {
      const r = await tool(agent, 'element_act', { window: win, ...args });
      assert.equal((r.structured as unknown as Receipt | undefined)?.refusal?.code, code, r.text);
    }
  });

  it('answers reads in compact text by default and full JSON on request', async () => {
    const text = await tool(agent, 'window_read', { window: win });
    assert.match(text.text, /^(\* )?"Overseer Fixture" window=/);
    assert.match(text.text, /button "Counter" #counter \[invoke\]/);
    assert.match(text.text, /edit "Password" =\(redacted\)/);
    assert.ok(!text.text.includes('hunter2'));
    const json = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win });
    assert.match(json.observation, /^O/);
    assert.equal(json.mode, 'full');
    assert.ok(text.text.length < JSON.stringify(json).length * 0.4, `text ${text.text.length} chars vs JSON ${JSON.stringify(json).length}`);
    // Rectangles: JSON asks every element for one; the text answer (and its structured twin) asks none.
    const flatten = (els: readonly Element[]): Element[] => els.flatMap((e) => [e, ...flatten(e.children ?? [])]);
    assert.ok(flatten(json.elements ?? []).filter((e) => e.rect !== undefined).length > 10);
    const textAnswer = text.structured as unknown as WindowReadAnswer;
    assert.deepEqual(
      flatten(textAnswer.elements ?? []).filter((e) => e.rect !== undefined),
      [],
    );
    // A text observation is no base for a JSON delta (it lacks the rects): a full answer, said so.
    const after = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win, since: textAnswer.observation });
    assert.equal(after.mode, 'full');
    assert.ok(after.reset_reason !== undefined);
  });

  it('answers a repeated read with a delta that names exactly what changed', async () => {
    const base = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win });
    await driver.setText('name_entry', 'Delta Dora');
    const next = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win, since: base.observation });
    assert.equal(next.mode, 'delta', JSON.stringify(next.reset_reason));
    const changed = next.delta?.changed.map((c) => c.element.automation_id).sort();
    assert.deepEqual(changed, ['name_entry', 'status'], 'the entry and the status label the fixture updates');
    assert.deepEqual(next.delta?.added, []);
    assert.deepEqual(next.delta?.removed, []);
    assert.equal(next.delta?.changed.find((c) => c.element.automation_id === 'name_entry')?.element.value, 'Delta Dora');
    const same = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win, since: next.observation });
    assert.equal(same.mode, 'delta');
    assert.equal(same.delta?.changed.length, 0);
    const snap = await toolJson<WindowReadAnswer>(agent, 'window_read', { snapshot: base.observation });
    assert.deepEqual(snap.elements, base.elements, 'a snapshot is retrieved without reading the desktop');
    const unknown = await toolJson(agent, 'window_read', { window: win, since: 'O9999' });
    assert.equal((unknown as unknown as WindowReadAnswer).reset_reason, 'base_unknown');
    assert.equal((await toolJson(agent, 'window_read', { snapshot: 'O9999' })).error?.code, 'snapshot_unknown');
  });

  it('asks a person, then dispatches the approved action and verifies it', async () => {
    const read = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win, format: 'flat' });
    const target = read.elements?.find((e) => e.automation_id === 'name_entry')?.target;
    assert.ok(target);
    const answer = act({ target, action: 'set_value', text: 'Approved Anna' });
    const card = await pendingCard('element', (p) => p.action === 'set_value');
    assert.equal(card.text, 'Approved Anna');
    assert.equal(card.current_value, 'Delta Dora');
    assert.equal(card.target?.automation_id, 'name_entry');
    assert.ok(card.ancestor_path.length > 0);
    await ui.command('approve', { approval_id: card.approval_id });
    const r = await answer;
    assert.equal(r.outcome, 'completed');
    assert.equal(r.decision?.verdict, 'approved');
    assert.equal(r.decision?.by, 'human');
    assert.equal(r.verification, 'verified');
    assert.equal(r.after?.value, 'Approved Anna');
    const again = await act({ target, action: 'set_value', text: 'again' });
    assert.equal(again.refusal?.code, 'snapshot_spent', 'a mutating action spends its observation');
    const bogus = await act({ target: 'Tnotarealhandl', action: 'invoke' });
    assert.equal(bogus.refusal?.code, 'snapshot_unknown');
  });

  it('answers a handle from an older observation of the same window superseded', async () => {
    const first = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win, format: 'flat' });
    const old = first.elements?.find((e) => e.automation_id === 'renamable')?.target;
    assert.ok(old);
    await driver.click('renamable');
    let second = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win, format: 'flat' });
    for (let i = 0; i < 50 && second.elements?.find((e) => e.automation_id === 'renamable')?.name !== 'Renamed'; i++)
      second = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win, format: 'flat' });
    const renamed = second.elements?.find((e) => e.automation_id === 'renamable');
    assert.equal(renamed?.name, 'Renamed');
    assert.notEqual(renamed?.target, old, 'a changed element gets a new handle');
    assert.equal(
      second.elements?.find((e) => e.automation_id === 'counter')?.target,
      first.elements?.find((e) => e.automation_id === 'counter')?.target,
      'an unchanged one keeps its handle',
    );
    const r = await act({ target: old, action: 'invoke' });
    assert.equal(r.refusal?.code, 'snapshot_superseded');
  });

  it('sends progress notifications while an action waits for approval', async () => {
    const seen: number[] = [];
    since = ui.mark();
    const call = agent.callTool({ name: 'element_act', arguments: { window: win, selector: { automation_id: 'counter' }, action: 'invoke' } }, undefined, {
      timeout: 60_000,
      onprogress: (p) => seen.push(p.progress),
    });
    const card = await pendingCard('element', (p) => p.target.automation_id === 'counter');
    // The serve above reports progress every 200 ms: wait for notifications to arrive, then decide.
    for (let i = 0; i < 100 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    await ui.command('approve', { approval_id: card.approval_id });
    await call;
    assert.ok(seen.length >= 2, `${seen.length} progress notifications while waiting`);
    assert.ok(
      seen.every((p, i) => i === 0 || p > (seen[i - 1] ?? 0)),
      'progress only grows',
    );
  });

  it('shows only the activation tool by default until the agent activates (progressive exposure)', async () => {
    const late = await httpClient(s, 'progressive-agent', { tiers: [] });
    try {
      assert.deepEqual(
        (await late.listTools()).tools.map((t) => t.name),
        ['computer_use_activate', 'computer_ask', 'computer_ctrl'],
      );
      assert.equal((await tool(late, 'window_list')).isError, true);
      let changed = false;
      late.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed = true;
      });
      await tool(late, 'computer_use_activate');
      for (let i = 0; i < 100 && !changed; i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(changed, 'tools/list_changed was sent');
      assert.equal((await late.listTools()).tools.length, 1 + QUESTION_HANDOFF_TOOL_NAMES.length + ACCESSIBILITY_TOOL_NAMES.length);
    } finally {
      await late.close();
    }
  });

  it("shows the chosen window's live tree on the UI channel", async () => {
    const { windows } = await ui.command<{ windows: { window: string; title: string }[] }>('refresh_windows');
    assert.ok(windows.some((w) => w.window === win));
    await ui.command('choose_window', { window: win });
    const tree = await ui.waitFor<{ window: string; elements: { name?: string }[] }>('tree', (t) => t.window === win);
    assert.equal(tree.elements[0]?.name, 'Overseer Fixture');
    const snap = await ui.command<{ chosen_window?: string; tree?: unknown[] }>('snapshot');
    assert.equal(snap.chosen_window, win);
  });

  it('keeps the chosen window’s tree current: an outside change and an approved action show up unasked', async () => {
    const valueIn = (els: readonly Element[], id: string): string | undefined => {
      for (const e of els) {
        if (e.automation_id === id) return e.value;
        const inner = valueIn(e.children ?? [], id);
        if (inner !== undefined) return inner;
      }
      return undefined;
    };
    await ui.command('choose_window', { window: win });
    const outside = ui.mark();
    await driver.setText('name_entry', 'Changed outside');
    await ui.waitFor<{ elements: Element[] }>('tree', (t) => valueIn(t.elements, 'name_entry') === 'Changed outside', 10_000, outside);
    const answer = act({ selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'Changed by the agent' });
    const card = await pendingCard('element', (p) => p.target.automation_id === 'name_entry');
    const approved = ui.mark();
    await ui.command('approve', { approval_id: card.approval_id });
    assert.equal((await answer).verification, 'verified');
    await ui.waitFor<{ elements: Element[] }>('tree', (t) => valueIn(t.elements, 'name_entry') === 'Changed by the agent', 10_000, approved);
    const status = await ui.command<UiSnapshot>('snapshot').then((snap) => snap.tree_status);
    assert.equal(status.state, 'current');
    assert.equal(status.window, win);
  });

  it('answers a handle from an observation that fell out of the 512 identities evicted', async () => {
    const long = (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find(
      (w) => w.title === 'Long Fixture',
    )?.window;
    const big = await toolJson<WindowReadAnswer>(agent, 'window_read', {
      window: long,
      format: 'flat',
      max_nodes: 1200,
      max_children_per_node: 1200,
      max_tokens: 200_000,
    });
    assert.ok((big.elements?.length ?? 0) > 600, `${big.elements?.length} elements`);
    const first = big.elements?.[0]?.target;
    assert.ok(first);
    const r = await act({ target: first, action: 'invoke' });
    assert.equal(r.refusal?.code, 'snapshot_evicted');
  });

  it('approve and allow for the session: the same action on the same element then runs without asking', async () => {
    const first = act({ selector: { automation_id: 'dup_b' }, action: 'invoke' });
    const card = await pendingCard('element', (p) => p.target.automation_id === 'dup_b');
    await ui.command('approve', { approval_id: card.approval_id, allow: { scope: 'element' } });
    assert.equal((await first).outcome, 'completed');
    const again = await act({ selector: { automation_id: 'dup_b' }, action: 'invoke' });
    assert.equal(again.outcome, 'completed');
    assert.equal(again.decision?.verdict, 'auto');
    assert.match(again.decision?.note ?? '', /rule/);
    const other = act({ selector: { automation_id: 'dup_a' }, action: 'invoke' });
    const otherCard = await pendingCard('element', (p) => p.target.automation_id === 'dup_a');
    await ui.command('deny', { approval_id: otherCard.approval_id });
    assert.equal((await other).refusal?.code, 'denied', 'the rule covers that element only');
  });

  it('refuses every action on an application a deny rule names', async () => {
    const { rule } = await ui.command<{ rule: { id: string } }>('add_rule', { pattern: '/fixture/' });
    try {
      const r = await act({ selector: { automation_id: 'counter' }, action: 'invoke' });
      assert.equal(r.refusal?.code, 'denied');
      assert.equal(r.decision?.by, 'policy');
    } finally {
      await ui.command('remove_rule', { id: rule.id });
    }
  });

  it('runs view-only actions without asking', async () => {
    const r = await act({ selector: { automation_id: 'subscribe' }, action: 'focus' });
    assert.equal(r.outcome, 'completed');
    assert.equal(r.decision?.verdict, 'auto');
  });

  it('passes a denial reason to the agent', async () => {
    const answer = act({ selector: { automation_id: 'counter' }, action: 'invoke' });
    const card = await pendingCard('element', (p) => p.target.automation_id === 'counter');
    await ui.command('deny', { approval_id: card.approval_id, reason: 'not now, please' });
    const r = await answer;
    assert.equal(r.outcome, 'refused');
    assert.equal(r.refusal?.code, 'denied');
    assert.equal(r.decision?.note, 'not now, please');
    assert.equal(r.action_call_made, false);
  });

  it('answers pending after approval_wait_ms, and action_wait returns the final receipt', async () => {
    await ui.command('update_settings', { approval_wait_ms: 1000 });
    try {
      const first = await act({ selector: { automation_id: 'subscribe' }, action: 'toggle' });
      assert.equal(first.outcome, 'pending');
      const card = await pendingCard('element', (p) => p.receipt_id === first.receipt_id);
      const waiting = toolJson<Receipt>(agent, 'action_wait', { receipt_id: first.receipt_id });
      await ui.command('approve', { approval_id: card.approval_id });
      const final = await waiting;
      assert.equal(final.outcome, 'completed');
      assert.equal(final.verification, 'verified');
    } finally {
      await ui.command('update_settings', { approval_wait_ms: 45_000 });
    }
  });

  it('refuses after approval when the target was replaced before dispatch, and nothing is done', async () => {
    const answer = act({ selector: { automation_id: 'replaceable' }, action: 'invoke' });
    const card = await pendingCard('element', (p) => p.target.automation_id === 'replaceable');
    await driver.click('replaceable');
    for (let i = 0; i < 100; i++) {
      const label = await toolJson<{ matches: { name?: string }[] }>(agent, 'element_find', { window: win, selector: { automation_id: 'replacements' } });
      if (label.matches[0]?.name === 'Replacements: 1') break;
      await new Promise((r) => setTimeout(r, 30));
    }
    await ui.command('approve', { approval_id: card.approval_id });
    const r = await answer;
    assert.equal(r.outcome, 'refused');
    assert.equal(r.refusal?.code, 'stale_element');
    assert.equal(r.action_call_made, false);
    const label = await toolJson<{ matches: { name?: string }[] }>(agent, 'element_find', { window: win, selector: { automation_id: 'replacements' } });
    assert.equal(label.matches[0]?.name, 'Replacements: 1', 'only the outside click happened');
  });

  it('masks password text on the card, in the receipt and in the journal', async () => {
    const answer = act({ selector: { automation_id: 'password' }, action: 'set_value', text: 'Sup3r-Secret-Pw' });
    const card = await pendingCard('element', (p) => p.target.automation_id === 'password');
    assert.equal(card.password, true);
    assert.notEqual(card.text, 'Sup3r-Secret-Pw');
    assert.equal(card.current_value, undefined);
    await ui.command('approve', { approval_id: card.approval_id });
    const r = await answer;
    assert.equal(r.outcome, 'completed');
    assert.ok(!JSON.stringify(r).includes('Sup3r'));
    let journal = '';
    await exportJournal(join(s.dataDir, 'journal'), (line) => (journal += line));
    assert.ok(journal.includes('"password"'), 'the journal has the call');
    assert.ok(!journal.includes('Sup3r'), 'but never the password text');
  });

  it('answers pending calls braked on stop, refuses new ones until resumed', async () => {
    const answer = act({ selector: { automation_id: 'counter' }, action: 'invoke' });
    await pendingCard('element', (p) => p.target.automation_id === 'counter');
    await ui.command('brake', { action: 'stop' });
    try {
      const r = await answer;
      assert.equal(r.refusal?.code, 'braked');
      const refusedNew = await act({ selector: { automation_id: 'counter' }, action: 'invoke' });
      assert.equal(refusedNew.refusal?.code, 'braked');
      const read = await tool(agent, 'window_list');
      assert.equal(read.isError, false, 'reads still run while stopped');
    } finally {
      await ui.command('brake', { action: 'resume' });
    }
  });

  it('serves the same tools over the stdio bridge', async () => {
    const client = new McpClient({ name: 'stdio-agent', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['bin/overseer.mjs', 'mcp', '--data-dir', s.dataDir],
        cwd: REPO_ROOT,
        env: { ...process.env } as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    try {
      // The bridge serves progressive exposure like HTTP: idle, it lists the activation tool and the two that talk to the person.
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['computer_use_activate', ...QUESTION_HANDOFF_TOOL_NAMES],
      );
      await activateTiers(client);
      assert.equal(
        (await client.listTools()).tools.every((t) => t.outputSchema !== undefined),
        true,
      );
      const list = await tool(client, 'window_list');
      assert.match(list.text, /Overseer Fixture/);
      const agents = await ui.waitFor<{ transport: string; client: string }[]>('agents', (a) => a.some((x) => x.transport === 'stdio'));
      assert.ok(agents.some((a) => a.transport === 'stdio'));
    } finally {
      await client.close();
    }
  });

  it('refuses missing or wrong tokens and foreign origins; the token file is private', async () => {
    const post = (headers: Record<string, string>): Promise<number> =>
      fetch(s.mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        }),
      }).then((r) => r.status);
    assert.equal(await post({}), 401);
    assert.equal(await post({ authorization: 'Bearer wrong-token-wrong-token' }), 401);
    assert.equal(await post({ authorization: `Bearer ${s.token}`, origin: 'http://evil.example' }), 403);
    const u = new URL(s.mcpUrl);
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: '/mcp',
          method: 'POST',
          headers: { host: `evil.example:${u.port}`, authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        },
        (res) => resolve(res.statusCode ?? 0),
      );
      req.once('error', reject);
      req.end('{}');
    });
    assert.equal(rebound, 403, 'a DNS-rebound Host is refused');
    assert.match(s.mcpUrl, /^http:\/\/127\.0\.0\.1:/);
    assert.equal((await stat(join(s.dataDir, 'token'))).mode & 0o777, 0o600);
    assert.equal((await readFile(join(s.dataDir, 'token'), 'utf8')).trim(), s.token);
  });

  it('answers 500 generated malformed calls with typed errors, journals each, and keeps serving', async () => {
    const before = (await verifyJournal(join(s.dataDir, 'journal'))).records;
    const bad: [string, Record<string, unknown>][] = [];
    const junk = [null, 42, -1, 1.5, '', '   ', 'x'.repeat(50_000), [], {}, true, { nested: { deep: [1, 2] } }];
    for (let i = 0; bad.length < 500; i++) {
      const j = junk[i % junk.length];
      const k = i % 10;
      if (k === 0) bad.push(['window_read', { max_nodes: j }]);
      else if (k === 1) bad.push(['element_find', { window: win, selector: { name: j } }]);
      else if (k === 2) bad.push(['element_find', { window: win, selector: { role: 'button', bogus: j } }]);
      else if (k === 3) bad.push(['element_act', { window: win, selector: { name: 'x' }, action: j }]);
      else if (k === 4) bad.push(['element_act', { window: win, target: `T${String(i)}bad`, action: 'invoke' }]);
      else if (k === 5) bad.push(['window_read', { window: win, since: j }]);
      else if (k === 6) bad.push(['window_read', { snapshot: `O${i}zz` }]);
      else if (k === 7)
        bad.push([
          'element_act',
          { window: win, selector: { automation_id: 'name_entry' }, action: 'set_value', text: [null, 42, [], {}, true, 'x'.repeat(200_000)][i % 6] },
        ]);
      else if (k === 8) bad.push(['action_wait', { receipt_id: j }]);
      else bad.push(['window_list', { limit: j, extra: 1 }]);
    }
    const allowed = new Set(['invalid_argument', 'snapshot_unknown']);
    let typed = 0;
    for (const [name, args] of bad) {
      const r = await tool(agent, name, args);
      if (!r.isError) {
        // a call that turned out valid (e.g. a non-blank string) must still be a typed refusal or an answer
        assert.ok(/refused|not found|windows|observation/.test(r.text), `${name} ${JSON.stringify(args).slice(0, 80)} → ${r.text.slice(0, 120)}`);
        continue;
      }
      const code = /^error (\w+):/.exec(r.text)?.[1] ?? '';
      assert.ok(allowed.has(code), `${name} ${JSON.stringify(args).slice(0, 100)} → ${r.text.slice(0, 200)}`);
      typed++;
    }
    assert.ok(typed >= 400, `${typed} typed errors`);
    const after = await verifyJournal(join(s.dataDir, 'journal'));
    assert.equal(after.ok, true, JSON.stringify(after.problems.slice(0, 3)));
    assert.ok(after.records - before >= 500, `${after.records - before} records for 500 calls`);
    assert.match((await tool(agent, 'window_list')).text, /Overseer Fixture/, 'still serving');
  });
});
