import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HandoffApproval, QuestionApproval, ReceiptEntry } from '../../protocol/index.js';
import { outcomeLine, type DecisionRecord } from './outcome.js';

const question: QuestionApproval = {
  kind: 'question',
  approval_id: 'q1',
  receipt_id: 'r-q1',
  session: 's1',
  agent: 'claude',
  action: 'ask',
  question: { text: 'Which file?', choices: ['a.txt', 'b.txt'] },
  password: false,
  ancestor_path: [],
  created_at: new Date(0).toISOString(),
  expires_at: new Date(120_000).toISOString(),
  risk_hints: [],
};

const { question: _question, ...common } = question;
const handoff: HandoffApproval = { ...common, kind: 'handoff', action: 'handoff', handoff: { reason: 'r', connection: 'local', held_inputs: 0 } };

const entry = (outcome: string, summary: string): ReceiptEntry => ({
  seq: 1,
  at: new Date(1).toISOString(),
  session: 's1',
  agent: 'claude',
  tool: 'computer_ask',
  receipt_id: 'r-q1',
  outcome,
  duration_ms: 1,
  summary,
});

const record = (r: Partial<DecisionRecord>): DecisionRecord => ({ approval_id: 'q1', receipt_id: 'r-q1', card: question, at: 0, ...r });

describe('the outcome line of a question or handoff', () => {
  it('says what the person did, then that the agent was told', () => {
    assert.equal(outcomeLine(record({ verdict: 'answered', sent: 'sending' }), false).text, 'Answered — sending…');
    assert.equal(outcomeLine(record({ verdict: 'answered', sent: 'accepted' }), false).text, 'Answered — telling the agent…');
    assert.equal(
      outcomeLine(record({ verdict: 'answered', final: entry('answered', 'question → answered: a.txt') }), false).text,
      'Answered — the agent was told',
    );
    assert.equal(outcomeLine(record({ verdict: 'declined', final: entry('declined', 'question → declined') }), false).tone, 'neutral');
    assert.equal(outcomeLine(record({ verdict: 'resumed', card: handoff }), false).text, 'Control given back — telling the agent…');
  });

  it('says what ended one the person did not decide here (a brake, the agent leaving), never an action’s words', () => {
    const line = outcomeLine(record({ final: entry('refused', 'question → withdrawn — the agent went away: ended by the agent') }), false);
    assert.deepEqual(line, { tone: 'neutral', text: 'Withdrawn — the agent went away: ended by the agent' });
    assert.equal(outcomeLine(record({ verdict: 'answered', sent: { error: 'answer: expired' } }), false).text, 'Not sent: answer: expired');
  });
});
