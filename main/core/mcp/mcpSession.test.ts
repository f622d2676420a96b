import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  ACTIVATE_TOOL,
  CONNECTION_TOOL_NAMES,
  DEFAULT_SETTINGS,
  QUESTION_HANDOFF_TOOL_NAMES,
  ACCESSIBILITY_TOOL_NAMES,
  type Receipt,
  type WindowReadAnswer,
} from '../../../protocol/index.js';
import { FakeClock } from '../../testing/fakeClock.js';
import { FakeHelper, fakeElement } from '../../testing/fakeHelper.js';
import { Journal } from '../journal/index.js';
import { ApprovalQueue } from '../supervision/approvals.js';
import { Brakes } from '../supervision/brakes.js';
import { HoldList } from '../supervision/holds.js';
import { Policy } from '../supervision/policy.js';
import { QueueAdmission } from '../supervision/admission.js';
import { AgentSession } from '../session/agentSession.js';
import { ToolRunner } from '../tools/toolRunner.js';
import { createMcpServer } from './mcpSession.js';
import { toolList } from './toolList.js';

/** One real turn of the event loop (file writes of the journal complete in real time). */
const turn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

/** An in-memory transport that sends JSON text, as every real transport does (no shared objects, no undefined values). */
function overTheWire(t: Transport, tamper?: (message: Record<string, unknown>) => void): Transport {
  const send = t.send.bind(t);
  t.send = (message, options) => {
    const wire = JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
    tamper?.(wire);
    return send(wire as typeof message, options);
  };
  return t;
}

const WAIT_MS = 1000;

/** The real MCP server of one agent (ToolRunner, journal, supervision core; fake helper and clock) and a real SDK client. */
async function rig(options: { progressive?: boolean; tamper?: (message: Record<string, unknown>) => void } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'overseer-mcp-'));
  const journal = await Journal.open(dir);
  const helper = new FakeHelper().add(
    fakeElement('counter'),
    fakeElement('name', { role: 'edit', value: 'Alice', patterns: ['value', 'focus'] }),
    fakeElement('secret', { role: 'edit', state: { enabled: true, password: true }, redacted: true, patterns: ['value'] }),
  );
  const clock = new FakeClock();
  const brakes = new Brakes();
  const approvals = new ApprovalQueue(clock);
  const settings = { ...DEFAULT_SETTINGS, approval_wait_ms: WAIT_MS };
  const runner = new ToolRunner({
    read: { helper, settings: () => settings },
    act: {
      helper,
      approvals,
      holds: new HoldList(brakes, clock),
      brakes,
      policy: new Policy(),
      admission: new QueueAdmission(),
      clock,
      settings: () => settings,
      journalEvent: async (r) => void (await journal.append(r)),
    },
    journal,
    onReceipt: () => {},
    log: () => {},
  });
  const session = new AgentSession({ transport: 'http', progressiveTools: options.progressive === true, now: () => clock.now() });
  const server = createMcpServer({ runner, session, version: 'test', onChange: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(overTheWire(serverSide, options.tamper));
  const client = new Client({ name: 'schema-agent', version: '1.0.0' });
  await client.connect(overTheWire(clientSide));
  /** Calls a tool through the SDK client, which validates structuredContent against the listed outputSchema. */
  const call = (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  /** A successful call: its structuredContent, checked against what `output: "json"` gives. */
  const answer = async <T>(name: string, args: Record<string, unknown> = {}): Promise<T> => {
    const r = await call(name, args);
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    assert.ok(r.structuredContent !== undefined, `${name} answered without structuredContent`);
    const text = (r.content[0] as { text: string }).text;
    assert.ok(!text.startsWith('{'), `${name}: the default content stays the compact text`);
    return r.structuredContent as T;
  };
  const card = async (): Promise<string> => {
    for (let i = 0; i < 400; i++) {
      const found = approvals.list()[0];
      if (found !== undefined) return found.approval_id;
      await turn();
    }
    throw new Error('no card');
  };
  /** Moves the fake clock until `p` settles (the call crosses the transport and the journal in real time first). */
  const tickUntil = async <T>(p: Promise<T>, stepMs: number): Promise<T> => {
    let settled = false;
    void p.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let i = 0; i < 400 && !settled; i++) {
      await clock.tick(stepMs);
      await turn();
    }
    return p;
  };
  const close = async (): Promise<void> => {
    await client.close();
    await journal.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { helper, clock, approvals, brakes, client, call, answer, card, tickUntil, close };
}

describe('MCP answers: every tool declares an outputSchema and every answer carries matching structuredContent', () => {
  let t: Awaited<ReturnType<typeof rig>>;
  before(async () => {
    t = await rig();
    await t.client.listTools(); // The SDK client validates answers against the schemas of its last listing.
  });
  after(() => t.close());

  it('lists the five accessibility tools, the two that talk to the person and the connections tier, each with an object outputSchema whose $refs resolve inside it', async () => {
    const { tools } = await t.client.listTools();
    assert.deepEqual(
      tools.map((x) => x.name),
      [...QUESTION_HANDOFF_TOOL_NAMES, ...ACCESSIBILITY_TOOL_NAMES, ...CONNECTION_TOOL_NAMES],
    );
    for (const tool of tools) {
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
      // A union of answers (action_wait, computer_ctrl) closes each alternative instead.
      const defs = (tool.outputSchema['$defs'] ?? {}) as Record<string, Record<string, unknown>>;
      const alternatives = ((tool.outputSchema['anyOf'] as Record<string, unknown>[] | undefined) ?? [tool.outputSchema]).map((a) =>
        typeof a['$ref'] === 'string' ? (defs[a['$ref'].slice('#/$defs/'.length)] ?? {}) : a,
      );
      for (const a of alternatives) assert.equal(a['additionalProperties'], false, `${tool.name}: unknown keys are not part of the answer`);
      const json = JSON.stringify(tool.outputSchema);
      for (const [, ref] of json.matchAll(/"\$ref":"#\/\$defs\/(\w+)"/g))
        assert.ok((tool.outputSchema['$defs'] as Record<string, unknown>)[ref ?? ''] !== undefined, `${tool.name}: $ref ${ref}`);
      assert.ok(!json.includes('9007199254740991'), `${tool.name}: no safe-integer bounds`);
      assert.ok(!json.includes('"description"'), `${tool.name}: answers need no descriptions`);
      for (const [field, prop] of Object.entries(tool.inputSchema.properties ?? {}))
        assert.ok(typeof (prop as { description?: unknown }).description === 'string', `${tool.name}.${field}: the agent reads a description`);
      assert.ok(!JSON.stringify(tool.inputSchema).includes('$ref'), `${tool.name}: arguments stay inline`);
    }
  });

  it('window_list and every kind of window_read answer validate: full tree, flat, truncated, delta, full after a reset, snapshot', async () => {
    const list = await t.answer<{ windows: unknown[] }>('window_list');
    assert.equal(list.windows.length, 1);
    const full = await t.answer<WindowReadAnswer>('window_read', { window: 'w1' });
    assert.equal(full.mode, 'full');
    assert.ok(
      full.elements?.[0]?.children?.every((e) => e.target !== undefined),
      'targets travel in structuredContent',
    );
    assert.ok(full.elements?.[0]?.children?.every((e) => e.digest === undefined));
    const flat = await t.answer<WindowReadAnswer>('window_read', { window: 'w1', format: 'flat' });
    assert.equal(flat.elements?.[1]?.depth, 1);
    const cut = await t.answer<WindowReadAnswer>('window_read', { window: 'w1', max_nodes: 2 });
    assert.deepEqual(cut.truncated_by, ['max_nodes']);
    const name = t.helper.elements.get('name');
    if (name !== undefined) name.element = { ...name.element, value: 'Bob' };
    const delta = await t.answer<WindowReadAnswer>('window_read', { window: 'w1', since: full.observation });
    assert.equal(delta.mode, 'delta');
    assert.equal(delta.delta?.changed[0]?.element.value, 'Bob');
    const reset = await t.answer<WindowReadAnswer>('window_read', { window: 'w1', since: cut.observation });
    assert.deepEqual([reset.mode, reset.reset_reason], ['full', 'base_truncated']);
    const snap = await t.answer<WindowReadAnswer>('window_read', { snapshot: full.observation });
    assert.equal(snap.observation, full.observation);
    assert.equal(snap.node_count, full.node_count);
  });

  it('element_find validates found and not found; a find observation is no window_read snapshot', async () => {
    const found = await t.answer<{ matches: { target?: string }[]; match_count: number }>('element_find', {
      window: 'w1',
      selector: { automation_id: 'counter' },
    });
    assert.equal(found.match_count, 1);
    assert.ok(found.matches[0]?.target !== undefined);
    const none = await t.answer<{ match_count: number; searched_whole_window: boolean }>('element_find', { window: 'w1', selector: { automation_id: 'nope' } });
    assert.deepEqual([none.match_count, none.searched_whole_window], [0, true]);
    // Observation ids count up: the one before the next read's is the find's (it recorded matches only).
    const next = await t.answer<WindowReadAnswer>('window_read', { window: 'w1' });
    const findId = `O${(parseInt(next.observation.slice(1), 36) - 1).toString(36)}`;
    const r = await t.call('window_read', { snapshot: findId });
    assert.equal(r.isError, true);
    assert.match((r.content[0] as { text: string }).text, /^error snapshot_unknown/);
  });

  it('element_act receipts validate: refused, auto-completed, pending, denied, and action_wait’s pending and final receipts', async () => {
    const refused = await t.answer<Receipt>('element_act', { selector: { automation_id: 'gone' }, action: 'invoke' });
    assert.deepEqual([refused.outcome, refused.refusal?.code], ['refused', 'not_found']);
    const focused = await t.answer<Receipt>('element_act', { selector: { automation_id: 'name' }, action: 'focus' });
    assert.deepEqual([focused.outcome, focused.decision?.verdict], ['completed', 'auto']);

    const asking = t.answer<Receipt>('element_act', { selector: { automation_id: 'secret' }, action: 'set_value', text: 'hunter2' });
    const id = await t.card();
    const pending = await t.tickUntil(asking, WAIT_MS);
    assert.equal(pending.outcome, 'pending');
    assert.ok(!JSON.stringify(pending).includes('hunter2'), 'structuredContent masks password text too');
    const waited = t.answer<Receipt>('action_wait', { receipt_id: pending.receipt_id, timeout_ms: 500 });
    assert.equal((await t.tickUntil(waited, 100)).outcome, 'pending');
    const final = t.answer<Receipt>('action_wait', { receipt_id: pending.receipt_id });
    await turn();
    t.approvals.approve(id);
    const done = await final;
    assert.deepEqual([done.outcome, done.action, done.decision?.verdict, done.after_read.status], ['completed', 'set_value', 'approved', 'full']);

    const denying = t.answer<Receipt>('element_act', { selector: { automation_id: 'counter' }, action: 'toggle' });
    t.approvals.deny(await t.card(), 'not now');
    const denied = await denying;
    assert.deepEqual([denied.outcome, denied.refusal?.code, denied.decision?.by], ['refused', 'denied', 'human']);
  });

  it('errors are isError with text only (no structuredContent), so the client returns them instead of failing validation', async () => {
    for (const [name, args, code] of [
      ['element_act', { action: 'invoke' }, 'invalid_argument'],
      ['action_wait', { receipt_id: 'Rnever' }, 'snapshot_unknown'],
      ['window_read', { snapshot: 'O999' }, 'snapshot_unknown'],
      ['no_such_tool', {}, 'invalid_argument'],
    ] as const) {
      const r = await t.call(name, args);
      assert.equal(r.isError, true, name);
      assert.equal(r.structuredContent, undefined, name);
      assert.match((r.content[0] as { text: string }).text, new RegExp(`^error ${code}`), name);
      const json = await t.call(name, { ...args, output: 'json' });
      assert.equal(
        (JSON.parse((json.content[0] as { text: string }).text) as { error: { code: string } }).error.code,
        code,
        `${name}: output json gives the structured error`,
      );
    }
  });
});

describe('MCP answers: progressive tools and the client’s validation itself', () => {
  it('computer_use_activate declares and answers its own structured answer; then the five accessibility tools are listed', async () => {
    const t = await rig({ progressive: true });
    try {
      const listed = await t.client.listTools();
      assert.deepEqual(
        listed.tools.map((x) => [x.name, x.outputSchema?.type]),
        [[ACTIVATE_TOOL, 'object'], ...QUESTION_HANDOFF_TOOL_NAMES.map((n) => [n, 'object'])],
      );
      const early = await t.call('window_list');
      assert.equal(early.isError, true, 'not activated yet');
      assert.match((early.content[0] as { text: string }).text, /tier_inactive/);
      assert.notEqual((await t.call('computer_ctrl')).isError, true, 'the tools that talk to the person need no activation');
      assert.deepEqual(await t.answer(ACTIVATE_TOOL), {
        activated: [ACTIVATE_TOOL, ...QUESTION_HANDOFF_TOOL_NAMES, ...ACCESSIBILITY_TOOL_NAMES],
        tiers: ['accessibility'],
      });
      assert.equal((await t.client.listTools()).tools.length, 1 + QUESTION_HANDOFF_TOOL_NAMES.length + ACCESSIBILITY_TOOL_NAMES.length);
      await t.answer('window_list');
    } finally {
      await t.close();
    }
  });

  it('the SDK client rejects an answer that breaks its outputSchema or lacks structuredContent (the check above is live)', async () => {
    let mode: 'extra' | 'missing' | 'absent' = 'extra';
    const t = await rig({
      tamper: (m) => {
        const result = m['result'] as { structuredContent?: Record<string, unknown> } | undefined;
        if (result?.structuredContent === undefined) return;
        if (mode === 'extra') result.structuredContent['surprise'] = 1;
        else if (mode === 'missing') delete result.structuredContent['total_known'];
        else delete result.structuredContent;
      },
    });
    try {
      await t.client.listTools();
      await assert.rejects(t.call('window_list'), /does not match the tool's output schema/);
      mode = 'missing';
      await assert.rejects(t.call('window_list'), /does not match the tool's output schema/);
      mode = 'absent';
      await assert.rejects(t.call('window_list'), /did not return structured content/);
    } finally {
      await t.close();
    }
  });

  it('toolList is built once from the protocol schemas', () => {
    assert.equal(toolList(), toolList());
  });
});
