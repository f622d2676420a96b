import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AskAnswer, CtrlState, HandoffAnswer, PendingApproval, Receipt } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { REPO_ROOT } from './runtime/paths.js';
import { UiClient, httpClient, removeDataDir, serve, toolJson, type Served } from '../testing/serveHarness.js';
import { exportJournal } from './journal/index.js';
import { cardIs } from '../testing/cards.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;

/**
 * Talking to the person (docs/supervision.md#questions-and-handoffs) through the real serve, helper and fixture, with the MCP SDK as
 * the agent and the UI channel as the person: questions answered, declined, pending and braked,
 * withdrawn when their agent leaves; computer_ctrl's state; a handoff that holds every input until
 * the person gives control back.
 */
describe('talking to the person: computer_ask and computer_ctrl', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let agent: Client;
  let ui: UiClient;
  let win: string;

  const card = <C extends PendingApproval>(test: (p: PendingApproval) => p is C, since = 0): Promise<C> =>
    ui.waitFor<PendingApproval[]>('pending', (list) => list.some(test), 15_000, since).then((list) => list.find(test) as C);
  const gone = (id: string): Promise<unknown> => ui.waitFor<PendingApproval[]>('pending', (list) => !list.some((p) => p.approval_id === id));
  const ask = (client: Client, args: Record<string, unknown>) => toolJson<AskAnswer>(client, 'computer_ask', args, { timeout: 120_000 });
  const journal = async (): Promise<Record<string, unknown>[]> => {
    const lines: Record<string, unknown>[] = [];
    await exportJournal(join(s.dataDir, 'journal'), (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
    return lines;
  };
  const journaled = async (test: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown> | undefined> => {
    for (const end = Date.now() + 5000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      const found = (await journal()).find(test);
      if (found !== undefined) return found;
    }
    return undefined;
  };

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '5'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    agent = await httpClient(s, 'asking-agent');
    ui = await UiClient.connect(s);
    win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(agent, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
  });
  after(async () => {
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('a question card: the person picks a choice, and question and answer are journaled', async () => {
    const since = ui.mark();
    const answer = ask(agent, { question: 'Which account should I use?', choices: ['personal', 'work'] });
    const q = await card(cardIs('question'), since);
    assert.deepEqual(q.question, { text: 'Which account should I use?', choices: ['personal', 'work'], imitates: [null, null] });
    assert.equal(q.agent, 'asking-agent');
    // Approve and deny decide actions; a question is answered.
    await assert.rejects(ui.command('approve', { approval_id: q.approval_id, allow: { scope: 'app' } }), /invalid_argument: this card is a question/);
    await assert.rejects(ui.command('deny', { approval_id: q.approval_id }), /invalid_argument/);
    await assert.rejects(ui.command('answer_question', { approval_id: q.approval_id, choice: 2 }), /invalid_argument: the question offers 2 choices/);
    await ui.command('answer_question', { approval_id: q.approval_id, choice: 1 });
    const a = await answer;
    assert.equal(a.outcome, 'answered');
    assert.equal(a.answer, 'work');
    assert.equal(a.choice, 1);
    assert.equal(a.receipt_id, q.receipt_id);
    const pending = await journaled((l) => l['kind'] === 'approval_pending' && l['approval_id'] === q.approval_id);
    assert.equal(pending?.['question'], 'Which account should I use?');
    assert.deepEqual(pending?.['choices'], ['personal', 'work']);
    const resolved = await journaled((l) => l['kind'] === 'approval_resolved' && l['approval_id'] === q.approval_id);
    assert.equal(resolved?.['answer'], 'work');
    assert.equal(resolved?.['choice'], 1);
    const call = await journaled(
      (l) => l['kind'] === 'tool_call' && l['tool'] === 'computer_ask' && (l['answer'] as AskAnswer | undefined)?.receipt_id === a.receipt_id,
    );
    assert.equal((call?.['answer'] as AskAnswer).answer, 'work');
  });

  it('a question without choices takes a written answer; a declined one says so with the note', async () => {
    let since = ui.mark();
    const written = ask(agent, { question: 'What should the file be called?' });
    let q = await card(cardIs('question'), since);
    await assert.rejects(ui.command('answer_question', { approval_id: q.approval_id, answer: '   ' }), /invalid_argument: an answer must not be blank/);
    await ui.command('answer_question', { approval_id: q.approval_id, answer: 'report-2026.txt' });
    assert.deepEqual(
      { outcome: (await written).outcome, answer: (await written).answer, choice: (await written).choice },
      { outcome: 'answered', answer: 'report-2026.txt', choice: undefined },
    );

    since = ui.mark();
    const declined = ask(agent, { question: 'May I delete the old drafts?', choices: ['yes', 'no'] });
    q = await card(cardIs('question'), since);
    await ui.command('answer_question', { approval_id: q.approval_id, decline: true, note: 'not today' });
    const d = await declined;
    assert.equal(d.outcome, 'declined');
    assert.equal(d.note, 'not today');
    assert.equal(d.answer, undefined);
  });

  it('refuses a blank question, too many or repeated choices, and an oversized question as invalid_argument', async () => {
    for (const args of [
      { question: '  ' },
      { question: 'q', choices: Array.from({ length: 13 }, (_, i) => `c${i}`) },
      { question: 'q', choices: ['same', 'same'] },
      { question: 'x'.repeat(2001) },
      { question: 'q', timeout_ms: 10 },
    ]) {
      const r = await ask(agent, args);
      assert.equal(r.error?.code, 'invalid_argument', JSON.stringify(args).slice(0, 80));
    }
  });

  it('after the approval wait a question answers pending; action_wait gets the answer', async () => {
    await ui.command('update_settings', { approval_wait_ms: 1000 });
    try {
      const since = ui.mark();
      const first = await ask(agent, { question: 'Is this the right invoice?', choices: ['yes', 'no'] });
      assert.equal(first.outcome, 'pending');
      const q = await card(
        cardIs('question', (p) => p.receipt_id === first.receipt_id),
        since,
      );
      const waiting = toolJson<AskAnswer>(agent, 'action_wait', { receipt_id: first.receipt_id, timeout_ms: 30_000 }, { timeout: 60_000 });
      await ui.command('answer_question', { approval_id: q.approval_id, choice: 0 });
      const final = await waiting;
      assert.equal(final.kind, 'question');
      assert.equal(final.outcome, 'answered');
      assert.equal(final.answer, 'yes');
      const recorded = await journaled((l) => l['phase'] === 'final' && (l['answer'] as AskAnswer | undefined)?.receipt_id === first.receipt_id);
      assert.equal((recorded?.['answer'] as AskAnswer).outcome, 'answered');
    } finally {
      await ui.command('update_settings', { approval_wait_ms: 45_000 });
    }
  });

  it('a Stop answers a waiting question braked; the card leaves the queue', async () => {
    const since = ui.mark();
    const answer = ask(agent, { question: 'Shall I go on?' });
    const q = await card(cardIs('question'), since);
    await ui.command('brake', { action: 'stop' });
    try {
      const a = await answer;
      assert.equal(a.outcome, 'refused');
      assert.equal(a.refusal?.code, 'braked');
      await gone(q.approval_id);
      // While stopped nothing new reaches the person.
      const later = await ask(agent, { question: 'And now?' });
      assert.equal(later.refusal?.code, 'braked');
    } finally {
      await ui.command('brake', { action: 'resume' });
    }
  });

  it('a question whose agent left is withdrawn at once', async () => {
    const leaving = await httpClient(s, 'leaving-agent');
    await ui.command('update_settings', { approval_wait_ms: 1000 });
    try {
      const since = ui.mark();
      const first = await ask(leaving, { question: 'Which folder?' });
      assert.equal(first.outcome, 'pending');
      const q = await card(
        cardIs('question', (p) => p.receipt_id === first.receipt_id),
        since,
      );
      await (leaving.transport as StreamableHTTPClientTransport).terminateSession();
      await gone(q.approval_id);
      const resolved = await journaled((l) => l['kind'] === 'approval_resolved' && l['approval_id'] === q.approval_id);
      assert.equal(resolved?.['verdict'], 'withdrawn');
      await assert.rejects(ui.command('answer_question', { approval_id: q.approval_id, choice: 0 }), /expired: approval .* is no longer pending/);
    } finally {
      await leaving.close().catch(() => {});
      await ui.command('update_settings', { approval_wait_ms: 45_000 });
    }
  });

  it('computer_ctrl {} reads what governs the agent: brake, the person, its connection, tiers, pending items and rules', async () => {
    const idle = await toolJson<CtrlState>(agent, 'computer_ctrl');
    assert.equal(idle.kind, 'state');
    assert.equal(idle.brake, 'running');
    assert.equal(idle.person.ui_attached, 1);
    assert.equal(idle.person.watching, false, 'the UI never said a person used it');
    await ui.command('presence', { visible: true });
    const since = ui.mark();
    const question = ask(agent, { question: 'Which printer?' });
    const q = await card(cardIs('question'), since);
    await ui.command('add_rule', { pattern: 'calc*' });
    try {
      const state = await toolJson<CtrlState>(agent, 'computer_ctrl');
      assert.equal(state.person.watching, true);
      assert.deepEqual(state.connection, { id: 'local', handed_off: false });
      assert.deepEqual(state.tiers, { accessibility: true, screen: true, screen_offered: true });
      assert.deepEqual(
        state.pending.map((p) => [p.receipt_id, p.kind, p.action]),
        [[q.receipt_id, 'question', 'ask']],
      );
      assert.deepEqual(state.held, []);
      assert.deepEqual(
        state.rules.map((r) => [r.kind, r.pattern]),
        [['deny_app', 'calc*']],
      );
      assert.equal(state.handoff, undefined);
    } finally {
      const rules = (await ui.command<{ rules: { id: string }[] }>('snapshot')).rules;
      for (const r of rules) await ui.command('remove_rule', { id: r.id });
      await ui.command('answer_question', { approval_id: q.approval_id, decline: true });
      await question;
    }
  });

  it('a handoff holds every input on the connection until the person gives control back with a note; the held action then goes to its card', async () => {
    let since = ui.mark();
    const handoff = toolJson<HandoffAnswer>(agent, 'computer_ctrl', { handoff: { reason: 'Please sign in to the bank' } }, { timeout: 120_000 });
    const h = await card(cardIs('handoff'), since);
    assert.deepEqual(h.handoff, { reason: 'Please sign in to the bank', connection: 'local', held_inputs: 0 });
    // A second handoff of the same agent is refused; its first is still the one.
    const again = await toolJson(agent, 'computer_ctrl', { handoff: { reason: 'again' } });
    assert.equal(again.error?.code, 'invalid_argument');

    since = ui.mark();
    const act = toolJson<Receipt>(
      agent,
      'element_act',
      { window: win, selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'after the handoff' },
      { timeout: 120_000 },
    );
    await card(
      cardIs('handoff', (p) => p.approval_id === h.approval_id && p.handoff.held_inputs === 1),
      since,
    );
    const state = await toolJson<CtrlState>(agent, 'computer_ctrl');
    assert.deepEqual(state.connection, { id: 'local', handed_off: true });
    assert.equal(state.handoff?.reason, 'Please sign in to the bank');
    assert.deepEqual(
      state.held.map((x) => [x.action, x.by]),
      [['set_value', 'handoff']],
    );
    // Held before it is even checked: no card of the action while the person has the desktop.
    assert.equal(
      ui.pending.some((p) => p.action === 'set_value'),
      false,
    );
    await assert.rejects(ui.command('approve', { approval_id: h.approval_id }), /invalid_argument: this card is a handoff/);

    since = ui.mark();
    await ui.command('resume_handoff', { approval_id: h.approval_id, note: 'signed in; the 2FA code is done' });
    const resumed = await handoff;
    assert.equal(resumed.outcome, 'resumed');
    assert.equal(resumed.resumed, true);
    assert.equal(resumed.note, 'signed in; the 2FA code is done');
    const actCard = await card(
      cardIs('element', (p) => p.action === 'set_value' && p.target.automation_id === 'name_entry'),
      since,
    );
    await ui.command('deny', { approval_id: actCard.approval_id, reason: 'not needed' });
    const r = await act;
    assert.equal(r.refusal?.code, 'denied');
    const resolved = await journaled((l) => l['kind'] === 'approval_resolved' && l['approval_id'] === h.approval_id);
    assert.equal(resolved?.['note'], 'signed in; the 2FA code is done');
  });

  it('a Stop answers a handoff braked, and the inputs it held are refused braked', async () => {
    let since = ui.mark();
    const handoff = toolJson<HandoffAnswer>(agent, 'computer_ctrl', { handoff: { reason: 'Solve the CAPTCHA' } }, { timeout: 120_000 });
    const h = await card(cardIs('handoff'), since);
    since = ui.mark();
    const act = toolJson<Receipt>(
      agent,
      'element_act',
      { window: win, selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'x' },
      { timeout: 120_000 },
    );
    await card(
      cardIs('handoff', (p) => p.approval_id === h.approval_id && p.handoff.held_inputs === 1),
      since,
    );
    await ui.command('brake', { action: 'stop' });
    try {
      const answer = await handoff;
      assert.equal(answer.outcome, 'refused');
      assert.equal(answer.refusal?.code, 'braked');
      assert.equal((await act).refusal?.code, 'braked');
    } finally {
      await ui.command('brake', { action: 'resume' });
    }
  });

  it('questions count against the queue bounds: the seventeenth waiting question of one agent is refused', async () => {
    await ui.command('update_settings', { approval_wait_ms: 1000 });
    try {
      const answers = await Promise.all(Array.from({ length: 17 }, (_, i) => ask(agent, { question: `question ${i}` })));
      const refused = answers.filter((a) => a.outcome === 'refused');
      assert.equal(answers.filter((a) => a.outcome === 'pending').length, 16);
      assert.equal(refused.length, 1);
      assert.equal(refused[0]?.refusal?.code, 'denied');
      assert.equal(refused[0]?.refusal?.data?.['reason'], 'session_limit');
    } finally {
      await ui.command('brake', { action: 'stop' });
      await ui.command('brake', { action: 'resume' });
      await ui.command('update_settings', { approval_wait_ms: 45_000 });
    }
  });
});
