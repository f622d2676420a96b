// The receipts timeline shows one row per action (docs/supervision.md#the-receipts-timeline): an
// act the agent was first answered `pending` for has several records — the early answer, the
// final receipt journaled on its own, and each action_wait that asked for it — and they share the
// receipt id. Reads and calls refused before they became an act have no receipt id: one row each.
import { MASKED_TEXT, type ConnectionRef, type Decision, type Receipt, type ReceiptEntry } from '../../protocol/index.js';
import { isRemote } from './connectionWords.js';
import { isFinal } from './outcome.js';

/** Who decided an act, as the person filters by it. */
export type DecisionKind = 'person' | 'rule' | 'automatic' | 'denied' | 'expired' | 'braked' | 'withdrawn';

/** One action (or one read) of the timeline, with every record it left. */
export interface ReceiptRow {
  /** The receipt id, or `seq-N` for a call without one. */
  key: string;
  /** The first record's sequence number: selects the row however many records join it later. */
  seq: number;
  /** Its records, oldest first. */
  records: ReceiptEntry[];
  /** The record that carries the final word (the newest one that is not the early `pending` answer), else the newest. */
  last: ReceiptEntry;
  /** The newest receipt among the records. */
  receipt: Receipt | undefined;
  /** When the call came (the first record's time minus its duration), ms since the epoch. */
  startMs: number;
  /** From the call to its final word's first record; still waiting: to its newest record. */
  durationMs: number;
  /** The tool the agent called for it (an action_wait joins the act it waited for). */
  tool: string;
  agent: string;
  session: string;
  /** The final outcome: `completed`, `refused`, … or `pending` while no final word came. */
  outcome: string;
  decision: Decision | undefined;
  kind: DecisionKind | undefined;
  /** Where it ran when that is not this desktop (docs/supervision.md#where-an-action-lands); undefined: here. */
  connection: ConnectionRef | undefined;
}

const ms = (iso: string): number => {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : t;
};

/** The tool an action's row names: the call that made it, else (its first record was dropped) what its receipt says. */
function actingTool(records: readonly ReceiptEntry[], receipt: Receipt | undefined): string {
  const call = records.find((r) => r.tool !== 'action_wait');
  if (call !== undefined) return call.tool;
  if (receipt === undefined) return records[0]?.tool ?? '';
  return receipt.screen !== undefined ? receipt.action : 'element_act';
}

/** Who decided, from the receipt's decision: a rule's automatic decision carries the rule's id in its note. */
export function decisionKind(d: Decision | undefined): DecisionKind | undefined {
  if (d === undefined) return undefined;
  switch (d.verdict) {
    case 'approved':
      return 'person';
    case 'auto':
      return d.note?.startsWith('rule ') === true ? 'rule' : 'automatic';
    default:
      return d.verdict;
  }
}

function rowOf(key: string, records: ReceiptEntry[]): ReceiptRow {
  const first = records[0] as ReceiptEntry;
  const newest = records[records.length - 1] as ReceiptEntry;
  const finals = records.filter((r) => r.receipt_id === undefined || isFinal(r));
  const last = finals[finals.length - 1] ?? newest;
  const receipt = last.receipt ?? [...records].reverse().find((r) => r.receipt !== undefined)?.receipt;
  const startMs = ms(first.at) - first.duration_ms;
  // It ended when its final word was first recorded; an action_wait after that only asked for it again.
  const firstFinal = finals[0];
  const ended = firstFinal === first ? undefined : (firstFinal ?? (records.length > 1 ? newest : undefined));
  const durationMs = ended === undefined ? first.duration_ms : Math.max(first.duration_ms, ms(ended.at) - startMs);
  const decision = receipt?.decision;
  return {
    key,
    seq: first.seq,
    records,
    last,
    receipt,
    startMs,
    durationMs,
    tool: actingTool(records, receipt),
    agent: first.agent,
    session: first.session,
    outcome: last.receipt?.outcome ?? last.outcome,
    decision,
    kind: decisionKind(decision),
    connection: records.map((r) => r.connection).find(isRemote),
  };
}

/** The timeline's rows, oldest first: records of one action (one receipt id) become one row, in the order the action began. */
export function groupReceipts(entries: readonly ReceiptEntry[]): ReceiptRow[] {
  const groups = new Map<string, ReceiptEntry[]>();
  for (const e of [...entries].sort((a, b) => a.seq - b.seq)) {
    const key = e.receipt_id !== undefined ? `r:${e.receipt_id}` : `seq-${e.seq}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [e]);
    else if (!group.some((g) => g.seq === e.seq)) group.push(e);
  }
  return [...groups].map(([key, records]) => rowOf(key, records)).sort((a, b) => a.seq - b.seq);
}

/** Whether a field's value must never be shown: a password field, as the receipt and the tree mark it. */
function secret(r: Receipt): boolean {
  return r.target?.state.password === true || r.target?.redacted === true || r.screen?.element?.password === true;
}

/** The text an act typed or set, masked for a password field (the supervisor masks it already; this never trusts that alone). */
export function typedText(r: Receipt | undefined): string | undefined {
  if (r?.text === undefined) return undefined;
  return secret(r) ? MASKED_TEXT : r.text;
}

/** An element's value before and after the act, masked like the tree masks it. */
export function valueChange(r: Receipt | undefined): { before?: string; after?: string } | undefined {
  if (r === undefined) return undefined;
  const shown = (e: Receipt['target']): string | undefined =>
    e === undefined
      ? undefined
      : e.redacted === true || e.state.password === true || secret(r)
        ? e.value !== undefined || e.redacted === true
          ? '••••'
          : undefined
        : e.value;
  const before = shown(r.target);
  const after = shown(r.after);
  if (before === undefined && after === undefined) return undefined;
  return { ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) };
}

/** What the act was aimed at, as people read it: `button “Counter”`, or for a screen input the element at the point. */
export function targetLabel(r: Receipt | undefined): string | undefined {
  const el = r?.target ?? r?.screen?.element;
  if (el === undefined) return undefined;
  return `${el.role}${el.name !== undefined && el.name !== '' ? ` “${el.name}”` : ''}`;
}

/** The decision in words: `approved by person`, `approved by rule R1`, `automatic`, `denied by person`, `denied by policy`, … */
export function decisionLabel(row: Pick<ReceiptRow, 'decision' | 'kind'>): string | undefined {
  const d = row.decision;
  switch (row.kind) {
    case undefined:
      return undefined;
    case 'person':
      return 'approved by person';
    case 'rule':
      return `approved by ${d?.note ?? 'rule'}`;
    case 'automatic':
      return 'automatic';
    case 'denied':
      return d?.by === 'human' ? 'denied by person' : 'denied by policy';
    case 'braked':
      return 'braked';
    default:
      return row.kind;
  }
}
