import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReceiptEntry } from '../../protocol/index.js';
import { by, entry, nineActs, pendingThenFinal, person, receipt, T0 } from '../testing/receiptFixtures.js';
import { filterRows, type ReceiptFilters } from './receiptFilter.js';
import { groupReceipts, type ReceiptRow } from './receiptRows.js';
import { actLine, detailFields, reasonOf, resultWords, searchText } from './receiptWords.js';

const rows = (): ReceiptRow[] => groupReceipts(nineActs());
const row = (id: string): ReceiptRow => rows().find((r) => r.key === `r:${id}`) as ReceiptRow;
const shown = (f: ReceiptFilters, now = T0 + 60_000): string[] => filterRows(rows(), f, now).map((r) => r.key);

describe('receipt rows', () => {
  it('makes one row per action: the pending answer, the final receipt and the action_wait of one act are one row', () => {
    const all = rows();
    assert.equal(nineActs().length, 14);
    assert.equal(all.length, 10, 'nine acts and one read');
    assert.deepEqual(
      all.map((r) => r.key),
      ['seq-1', 'r:A1', 'r:A2', 'r:A3', 'r:A4', 'r:A5', 'r:A6', 'r:A7', 'r:A8', 'r:A9'],
    );
    const a3 = row('A3');
    assert.deepEqual(
      a3.records.map((r) => r.seq),
      [4, 5, 6],
    );
    assert.equal(a3.tool, 'element_act', 'the row names the call that made the act, not the action_wait');
    assert.equal(a3.outcome, 'completed');
    assert.equal(a3.kind, 'person');
    assert.equal(resultWords(a3), 'verified');
    // From the call (1 s before its pending answer) to the final receipt 4 s after that answer.
    assert.equal(a3.durationMs, 5000);
    assert.equal(row('A1').durationMs, 200);
  });

  it('shows a row still waiting as pending, and joins the final receipt when it comes, whichever arrives first', () => {
    const records = pendingThenFinal(1, 0, 'B1', {});
    const waiting = groupReceipts(records.slice(0, 1));
    assert.equal(waiting[0]?.outcome, 'pending');
    assert.equal(resultWords(waiting[0]), 'waiting for a decision');
    const out = groupReceipts([records[2] as ReceiptEntry, records[0] as ReceiptEntry, records[1] as ReceiptEntry]);
    assert.equal(out.length, 1);
    assert.equal(out[0]?.outcome, 'completed');
    assert.equal(out[0]?.seq, 1);
    // Its first record dropped (the UI keeps the last 500): the row still names the act, not the wait.
    assert.equal(groupReceipts(records.slice(2))[0]?.tool, 'element_act');
  });

  it('tells who decided: a person, a session rule, automatically, or a denial by the person or policy', () => {
    assert.equal(row('A1').kind, 'person');
    assert.equal(row('A2').kind, 'rule');
    assert.equal(row('A6').kind, 'automatic');
    assert.equal(row('A4').kind, 'denied');
    assert.equal(row('A5').kind, undefined, 'refused before anyone decided');
    assert.equal(rows()[0]?.kind, undefined, 'a read');
  });

  it('names the typed text in the row, and masks it for a password field whatever the receipt carries', () => {
    assert.equal(actLine(row('A7')), 'type_text “hello” on edit “Name”');
    assert.equal(actLine(row('A9')), 'type_text “••••••” on password_text “Password”');
    assert.ok(!JSON.stringify(detailFields(row('A9'))).includes('sesame'));
    assert.ok(!searchText(row('A9')).includes('sesame'));
    assert.equal(actLine(row('A3')), 'set_value button “Counter” to “Rita”');
    assert.equal(actLine(rows()[0] as ReceiptRow), 'window_list ok');
  });

  it('says why an act did not run in words', () => {
    assert.equal(reasonOf(row('A4')), 'Denied by the person: “wrong checkbox”');
    assert.equal(reasonOf(row('A5')), 'Refused: no element matched (not_found) — nothing matched {"automation_id":"nope"}');
    assert.equal(reasonOf(row('A8')), 'Failed: the window changed or closed (stale_window) — the window closed');
    assert.equal(reasonOf(row('A1')), undefined);
    const policy = groupReceipts([
      entry(
        1,
        0,
        'element_act',
        receipt('C1', {
          outcome: 'refused',
          action_call_made: false,
          decision: by('denied', 'policy', 'the application "fixtureApp.py" is denied by the rule fixture*'),
          refusal: { code: 'denied', detail: 'the application "fixtureApp.py" is denied by the rule fixture*', data: { rule: 'R1' } },
        }),
      ),
    ])[0] as ReceiptRow;
    assert.equal(reasonOf(policy), 'Denied by policy — the application "fixtureApp.py" is denied by the rule fixture*');
    const silent = groupReceipts([entry(1, 0, 'element_act', receipt('C2', { outcome: 'refused', decision: by('denied', 'human') }))])[0] as ReceiptRow;
    assert.equal(reasonOf(silent), 'Denied by the person (no reason given)');
  });

  it('lists the details as labelled fields: window, element, value before and after, decision, changed state', () => {
    const r = groupReceipts([
      entry(
        1,
        0,
        'element_act',
        receipt('D1', {
          action: 'set_value',
          text: 'Rita',
          decision: person,
          target: { key: 'k', role: 'edit', name: 'Name', value: 'Olga', automation_id: 'name_entry', state: {}, patterns: [] },
          after: { key: 'k', role: 'edit', name: 'Name', value: 'Rita', state: {}, patterns: [] },
          changed_state: ['selected'],
        }),
      ),
    ])[0] as ReceiptRow;
    const f = Object.fromEntries(detailFields(r));
    assert.equal(f['Window'], '“Overseer Fixture” · fixtureApp.py · pid 4242');
    assert.equal(f['Element'], 'edit “Name”');
    assert.equal(f['Automation id'], 'name_entry');
    assert.equal(f['Value'], 'Olga → Rita');
    assert.match(f['Decision'] ?? '', /^approved by person at /);
    assert.equal(f['Changed state'], 'it also changed selected');
    assert.equal(actLine(r), 'set_value edit “Name” to “Rita”; it also changed selected');
    assert.equal(f['Ran'], 'yes');
    const secret = groupReceipts([
      entry(
        1,
        0,
        'element_act',
        receipt('D2', {
          action: 'set_value',
          text: 'hunter3',
          target: { key: 'k', role: 'edit', name: 'Password', state: { password: true }, patterns: [], redacted: true },
          after: { key: 'k', role: 'edit', name: 'Password', state: { password: true }, patterns: [], redacted: true },
        }),
      ),
    ])[0] as ReceiptRow;
    const s = Object.fromEntries(detailFields(secret));
    assert.equal(s['Text'], '••••••');
    assert.equal(s['Value'], '•••• → ••••');
  });
});

describe('receipt filters', () => {
  it('searches tool, agent, element, typed text and reason, every word', () => {
    assert.deepEqual(shown({ search: 'hello' }), ['r:A7']);
    assert.deepEqual(shown({ search: 'wrong checkbox' }), ['r:A4']);
    assert.deepEqual(shown({ search: 'PASSWORD' }), ['r:A9']);
    assert.deepEqual(shown({ search: 'window_list' }), ['seq-1']);
    assert.deepEqual(shown({ search: 'sesame' }), [], 'a masked text is not found by its value');
    assert.equal(shown({ search: 'claude counter' }).length, 7, 'the acts aimed at the Counter button (the element acts here share their target)');
    assert.equal(shown({ search: 'codex' }).length, 0);
  });

  it('filters by who decided and what became of it', () => {
    assert.deepEqual(shown({ decision: 'person' }), ['r:A1', 'r:A3', 'r:A7', 'r:A8', 'r:A9']);
    assert.deepEqual(shown({ decision: 'rule' }), ['r:A2']);
    assert.deepEqual(shown({ decision: 'automatic' }), ['r:A6']);
    assert.deepEqual(shown({ decision: 'denied' }), ['r:A4']);
    assert.deepEqual(shown({ decision: 'refused' }), ['r:A5']);
    assert.deepEqual(shown({ decision: 'failed' }), ['r:A8']);
    assert.deepEqual(shown({ decision: 'denied', tool: 'type_text' }), []);
    assert.deepEqual(shown({ tool: 'type_text', outcome: 'completed' }), ['r:A7', 'r:A9']);
  });

  it('keeps a time range: the last 5 minutes, the last hour, today, or from – to in local time', () => {
    assert.equal(shown({ range: '5m' }, T0 + 4 * 60_000).length, 10);
    assert.deepEqual(shown({ range: '5m' }, T0 + 5 * 60_000 + 12_500), ['r:A7', 'r:A8', 'r:A9'], 'rows begun within 5 min of now');
    assert.equal(shown({ range: '1h' }, T0 + 2 * 3600_000).length, 0);
    assert.equal(shown({ range: 'today' }, T0 + 60_000).length, 10);
    const nextDay = new Date(T0);
    nextDay.setDate(nextDay.getDate() + 1);
    assert.equal(shown({ range: 'today' }, nextDay.getTime()).length, 0);
    const local = (ms: number): string => {
      const d = new Date(ms);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    };
    // A row's time is when its call came: its first record's time less the call's duration (A6 came at 11.8 s).
    assert.deepEqual(shown({ range: 'custom', from: local(T0 + 12_000) }), ['r:A7', 'r:A8', 'r:A9']);
    assert.deepEqual(shown({ range: 'custom', to: local(T0) }), ['seq-1', 'r:A1'], 'to includes its whole second');
    assert.deepEqual(shown({ range: 'custom', from: local(T0 + 10_000), to: local(T0 + 11_000) }), ['r:A5', 'r:A6']);
    assert.equal(shown({ range: 'custom', from: 'not a time' }).length, 10, 'an unfinished field filters nothing');
  });
});
