import { execEndWords, unreachable, type PendingApproval, type ReceiptEntry } from '../../protocol/index.js';

/** What the person did with a card in this window: an action's decision, a question's answer or decline, a handoff given back. */
export type Verdict = 'approved' | 'allowed' | 'denied' | 'answered' | 'declined' | 'resumed';

/** A card that left the queue: decided here, or removed by the supervisor (expired, braked, withdrawn, decided elsewhere). */
export interface DecisionRecord {
  approval_id: string;
  receipt_id: string;
  card: PendingApproval;
  /** Epoch ms it left the queue. */
  at: number;
  /** Set when the person decided it here; absent when it left otherwise. */
  verdict?: Verdict;
  /** The scope of a confirmed allow-for-session. */
  scope?: 'element' | 'app';
  /** The decision command's fate: on its way, accepted, or refused by the supervisor (why). */
  sent?: 'sending' | 'accepted' | { error: string };
  /** The final receipt of the action (outcome other than `pending`), once it arrived. */
  final?: ReceiptEntry;
}

/** How an outcome line looks: verified, not yet known, done but unverified, bad, or neither (expired, withdrawn, braked, denied). */
export type Tone = 'ok' | 'wait' | 'unverified' | 'bad' | 'neutral';

/** The outcome line a placeholder and the recent decisions list show. */
export interface OutcomeLine {
  tone: Tone;
  text: string;
}

/** Whether a receipt entry is the final word on its action (not the early `pending` answer). */
export function isFinal(entry: ReceiptEntry): boolean {
  return entry.receipt_id !== undefined && entry.outcome !== 'pending';
}

const dash = (detail: string | undefined): string => (detail !== undefined && detail !== '' ? ` — ${detail}` : '');

/**
 * What the final receipt says happened: verified, mismatch, completed (not checked), failed, refused: code — detail, withdrawn, braked, expired, denied;
 * a command: how it ended (exit 0, exit 3, killed by signal 9, timed out after … ms).
 */
export function resultOf(entry: ReceiptEntry): OutcomeLine {
  const r = entry.receipt;
  if (entry.error !== undefined) return { tone: 'bad', text: `failed: ${entry.error.code}${dash(entry.error.detail)}` };
  if (entry.remote_exec !== undefined) {
    const end = execEndWords(entry.remote_exec);
    return { tone: end.ok ? 'ok' : 'bad', text: end.ok ? `ran: ${end.text}` : `failed: ${end.text}` };
  }
  const outcome = r?.outcome ?? entry.outcome;
  if (outcome === 'completed') {
    const verification = r?.verification ?? entry.verification;
    if (verification === 'verified') return { tone: 'ok', text: 'verified' };
    if (verification === 'mismatch') return { tone: 'bad', text: `mismatch${dash(r?.verification_detail)}` };
    return { tone: 'unverified', text: 'completed (not checked)' };
  }
  if (outcome === 'failed') return { tone: 'bad', text: `failed${r?.error !== undefined ? `: ${r.error.code}${dash(r.error.detail)}` : ''}` };
  if (outcome === 'unknown') return { tone: 'bad', text: `unknown — it may or may not have happened${dash(r?.error?.detail)}` };
  const refusal = r?.refusal;
  if (refusal === undefined) return { tone: 'bad', text: `refused${dash(entry.summary)}` };
  switch (refusal.code) {
    case 'withdrawn':
    case 'braked':
    case 'expired':
      return { tone: 'neutral', text: `${refusal.code}${dash(refusal.detail)}` };
    case 'denied':
      return { tone: 'neutral', text: `denied${dash(r?.decision?.note ?? refusal.detail)}` };
    default:
      return { tone: 'bad', text: `refused: ${refusal.code}${dash(refusal.detail)}` };
  }
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The outcome line of a card that left the queue: what the person did, then what became of it —
 * "Approved — running…", "Approved — held by the pause; runs on Resume", "Approved — verified",
 * "Approved — refused: stale_element — …", "Expired — nobody answered within 120 s".
 */
export function outcomeLine(record: DecisionRecord, held: boolean): OutcomeLine {
  const card = record.card;
  switch (card.kind) {
    case 'question':
    case 'handoff':
      return questionHandoffOutcomeLine(record);
    case 'remote_exec':
    case 'add_connection':
      return actionOutcomeLine(record, held, card.kind);
    case 'element':
    case 'screen':
      return actionOutcomeLine(record, held, undefined);
    case 'agent_grant':
      return grantOutcomeLine(record);
    default:
      return unreachable(card);
  }
}

/** The outcome line of an agent_grant card: no call waits on it, only the client's sign-in (docs/agents.md#consent). */
function grantOutcomeLine(record: DecisionRecord): OutcomeLine {
  if (typeof record.sent === 'object') return { tone: 'bad', text: `Not decided: ${record.sent.error}` };
  if (record.verdict === 'approved') return { tone: 'ok', text: 'Granted — it connects as itself; Settings → Agents revokes it' };
  if (record.verdict === 'denied') return { tone: 'neutral', text: 'Denied — the client was told' };
  return { tone: 'neutral', text: 'Left the queue — the client stopped waiting, or it expired' };
}

/** The outcome line of an action's card; `command` names a remote_exec or add_connection, whose final entry carries no act receipt. */
function actionOutcomeLine(record: DecisionRecord, held: boolean, command: 'remote_exec' | 'add_connection' | undefined): OutcomeLine {
  const lead =
    record.verdict === 'approved'
      ? 'Approved'
      : record.verdict === 'allowed'
        ? `Approved and allowed for the session (${record.scope === 'app' ? 'any element of the app' : 'this element'})`
        : record.verdict === 'denied'
          ? 'Denied'
          : undefined;
  const final = record.final;
  if (final !== undefined && final.receipt === undefined && command !== undefined) return commandOutcome(command, lead, final);
  if (final !== undefined) {
    const result = resultOf(final);
    if (lead === undefined) {
      // Decided in another window, or ended by the supervisor: say so, then what happened.
      const verdict = final.receipt?.decision?.verdict ?? final.decision;
      const elsewhere =
        verdict === 'approved' ? 'Approved elsewhere — ' : verdict === 'denied' && final.receipt?.decision?.by === 'human' ? 'Decided elsewhere — ' : '';
      return { tone: result.tone, text: elsewhere === '' ? capital(result.text) : `${elsewhere}${result.text}` };
    }
    if (record.verdict === 'denied' && final.receipt?.refusal?.code === 'denied')
      return { tone: 'neutral', text: `Denied — the agent was told${dash(final.receipt.decision?.note)}` };
    return { tone: result.tone, text: `${lead} — ${result.text}` };
  }
  if (typeof record.sent === 'object') return { tone: 'bad', text: `Not decided: ${record.sent.error}` };
  if (lead === undefined)
    return held
      ? { tone: 'wait', text: 'Approved elsewhere — held by the pause; runs on Resume' }
      : { tone: 'wait', text: 'Left the queue — waiting for its outcome…' };
  if (record.sent === 'sending') return { tone: 'wait', text: `${lead} — sending…` };
  if (record.verdict === 'denied') return { tone: 'neutral', text: 'Denied — telling the agent…' };
  if (held) return { tone: 'wait', text: `${lead} — held by the pause; runs on Resume` };
  return { tone: 'wait', text: `${lead} — running…` };
}

/**
 * The outcome line of a remote_exec or add_connection card (their final entry carries no act
 * receipt, only how the call ended): "Denied — the agent was told", "Approved — ran: exit 0; its
 * output went to the agent", "Approved — failed: exit 3; its output went to the agent", "Approved —
 * failed: timed out after 5004 ms", "Approved — added", or what ended it ("Approved — failed: connection_unavailable — …").
 */
function commandOutcome(action: 'remote_exec' | 'add_connection', lead: string | undefined, final: ReceiptEntry): OutcomeLine {
  const e = final.error;
  if (e !== undefined && ['denied', 'expired', 'withdrawn', 'braked'].includes(e.code)) {
    const told = e.code === 'denied' && lead === 'Denied' ? 'Denied — the agent was told' : capital(`${e.code}${dash(e.detail)}`);
    return { tone: 'neutral', text: told };
  }
  const head = lead ?? 'Approved elsewhere';
  if (e !== undefined) return { tone: 'bad', text: `${head} — failed: ${e.code}${dash(e.detail)}` };
  if (final.remote_exec !== undefined) {
    const ended = resultOf(final);
    return { tone: ended.tone, text: `${head} — ${ended.text}; its output went to the agent` };
  }
  return { tone: 'unverified', text: `${head} — ${action === 'remote_exec' ? 'ran; its output went to the agent' : 'added'}` };
}

/**
 * The outcome line of a question or handoff that left the queue: "Answered — the agent was told",
 * "Declined — telling the agent…", "Control given back — the agent was told", or, when it left
 * otherwise, what ended it ("withdrawn — the agent went away…", "expired…", "braked…").
 */
function questionHandoffOutcomeLine(record: DecisionRecord): OutcomeLine {
  const lead =
    record.verdict === 'answered' ? 'Answered' : record.verdict === 'declined' ? 'Declined' : record.verdict === 'resumed' ? 'Control given back' : undefined;
  const final = record.final;
  if (typeof record.sent === 'object') return { tone: 'bad', text: `Not sent: ${record.sent.error}` };
  if (lead !== undefined) {
    if (final !== undefined) return { tone: record.verdict === 'declined' ? 'neutral' : 'ok', text: `${lead} — the agent was told` };
    return { tone: 'wait', text: `${lead} — ${record.sent === 'sending' ? 'sending…' : 'telling the agent…'}` };
  }
  // Ended by the supervisor (a brake, its agent leaving, expiry) or decided in another window: the timeline's summary says which.
  if (final !== undefined) {
    const said = final.summary.replace(/^(question|handoff) → /, '');
    return { tone: final.outcome === 'refused' ? 'neutral' : 'ok', text: capital(said) };
  }
  return { tone: 'wait', text: 'Left the queue — waiting for its outcome…' };
}

/** How long an approved action may go without its final receipt before the queue stops counting it as running. */
const RUNNING_MS = 60_000;

/** Whether a decision made here is approved and still on its way to its outcome (not held, no final receipt yet). */
export function inFlight(record: DecisionRecord, now: number): boolean {
  return (
    (record.verdict === 'approved' || record.verdict === 'allowed') &&
    record.final === undefined &&
    typeof record.sent !== 'object' &&
    now - record.at < RUNNING_MS
  );
}

/**
 * What an empty queue says. Never "Nothing waits for you" while an approved action waits for Resume,
 * including the moment between an approval made while paused and the supervisor listing it as held.
 */
export function emptyQueueText(live: boolean, held: readonly string[], running: readonly string[], paused: boolean, agents = 1): string {
  if (!live) return 'Not connected: whether anything waits for you is unknown.';
  const soon = running.filter((id) => !held.includes(id)).length;
  const forResume = held.length + (paused ? soon : 0);
  if (forResume > 0) return `${forResume} approved ${forResume === 1 ? 'action waits' : 'actions wait'} for Resume.`;
  if (soon > 0) return `Nothing new waits for you; ${soon} approved ${soon === 1 ? 'action is' : 'actions are'} running.`;
  if (agents === 0) return 'Nothing waits for you: no agent is connected. Once one is, the actions it asks for appear here.';
  return 'Nothing waits for you. Actions that change an application will appear here.';
}
