// What a timeline row says in words: the act with its target and text, why it did not run, and the
// labelled fields of its details. Every string an agent or an application supplied is returned as
// is; the components show it through UntrustedText.
import { execEndWords } from '../../protocol/index.js';
import { whereLine } from './connectionWords.js';
import { windowLine } from './screenDescribe.js';
import { resultOf } from './outcome.js';
import { decisionLabel, targetLabel, typedText, valueChange, type ReceiptRow } from './receiptRows.js';

/** Error codes (docs/tools.md#errors) as a person reads them in a refusal. */
const CODE_WORDS: Record<string, string> = {
  not_found: 'no element matched',
  ambiguous: 'more than one element matched',
  unreadable: 'the element could not be read',
  incomplete_scan: 'the window could not be searched whole',
  pattern_unsupported: 'the element does not support this action',
  not_enabled: 'the element is disabled',
  stale_process: 'the application exited or restarted',
  stale_window: 'the window changed or closed',
  window_gone: 'the window or its application closed',
  application_unresponsive: 'the application stopped answering',
  input_unavailable: 'keys could not be sent there',
  stale_element: 'the element changed since it was checked',
  stale_screen: 'the screen changed where the input lands',
  excluded_target: 'the target is excluded from agents',
  target_elevated: 'the target runs with higher privileges',
  snapshot_unknown: 'the agent named a target it was never given',
  snapshot_evicted: 'the agent named a target that is no longer kept',
  timeout: 'it took too long',
  helper_unavailable: 'the accessibility helper was not running',
  accessibility_unavailable: 'accessibility is not available',
  invalid_argument: 'the agent sent invalid arguments',
  expired: 'nobody answered in time',
  braked: 'the brakes were on',
  withdrawn: 'the agent went away',
  denied: 'denied',
  internal: 'an internal error',
};

/** An error code in words, with the code for the curious: `no element matched (not_found)`. */
export function codeWords(code: string): string {
  const words = CODE_WORDS[code];
  return words === undefined ? code : `${words} (${code})`;
}

const dash = (s: string | undefined): string => (s !== undefined && s !== '' ? ` — ${s}` : '');

/**
 * Why an act did not run or did not finish, in words, or undefined when it did: the person's own
 * deny reason, the deny rule or queue bound that refused it, expiry, brakes, departure, or the check
 * that refused it.
 */
export function reasonOf(row: ReceiptRow): string | undefined {
  const d = row.decision;
  const r = row.receipt;
  const error = row.last.error ?? (row.outcome === 'failed' || row.outcome === 'unknown' ? r?.error : undefined);
  if (d?.verdict === 'denied') {
    if (d.by === 'human') return d.note !== undefined ? `Denied by the person: “${d.note}”` : 'Denied by the person (no reason given)';
    return `Denied by policy${dash(r?.refusal?.detail ?? d.note)}`;
  }
  if (d?.verdict === 'expired') return `Nobody answered in time${dash(d.note)}`;
  if (d?.verdict === 'braked') return `Stopped by the brakes${dash(d.note ?? r?.refusal?.detail)}`;
  if (d?.verdict === 'withdrawn') return `The agent went away${dash(d.note ?? r?.refusal?.detail)}`;
  if (row.outcome === 'refused' && r?.refusal !== undefined) return `Refused: ${codeWords(r.refusal.code)}${dash(r.refusal.detail)}`;
  const exec = row.last.error === undefined ? row.last.remote_exec : undefined;
  if (exec !== undefined && !execEndWords(exec).ok) return `Failed: ${execEndWords(exec).text}`;
  if (error !== undefined) return `${row.outcome === 'unknown' ? 'It may or may not have happened' : 'Failed'}: ${codeWords(error.code)}${dash(error.detail)}`;
  return undefined;
}

/**
 * The act in one line without its outcome: `invoke button “Counter”`, `set_value edit “Name” to
 * “Rita”`, `type_text “hello”`, `key ctrl+s`, `focus list_item “B”; it also changed selected`. A read
 * says what the supervisor summed up.
 */
export function actLine(row: ReceiptRow): string {
  const r = row.receipt;
  if (r === undefined) return row.last.error !== undefined ? row.tool : row.last.summary;
  const text = typedText(r);
  const keys = r.action === 'key' || r.action === 'hold_key' ? r.screen?.keys : undefined;
  const target = targetLabel(r);
  return [
    r.action,
    r.screen === undefined ? target : undefined,
    text !== undefined ? `${r.screen === undefined ? 'to ' : ''}“${text}”` : undefined,
    keys,
    r.screen !== undefined && target !== undefined ? `on ${target}` : undefined,
    // An automatic act that changed more than the view says so where the person reads it (docs/supervision.md#view-only-actions).
    r.changed_state !== undefined && r.changed_state.length > 0 ? `; it also changed ${r.changed_state.join(', ')}` : undefined,
  ]
    .filter((x) => x !== undefined)
    .join(' ')
    .replace(' ; ', '; ');
}

/** What became of it: `verified`, `completed (not checked)`, `refused: stale_element — …`, `pending`. */
export function resultWords(row: ReceiptRow): string {
  if (row.outcome === 'pending') return 'waiting for a decision';
  return resultOf(row.last).text;
}

/** The row's details as labelled fields, in the order a person reads them; absent fields are left out. */
export function detailFields(row: ReceiptRow): [label: string, value: string][] {
  const r = row.receipt;
  const w = r?.window;
  const change = valueChange(r);
  const el = r?.target;
  const d = row.decision;
  // A screen input's point, element, window and path are listed by its own fields (ReceiptScreenFields) below these.
  const screen = r?.screen !== undefined;
  const fields: [string, string | undefined][] = [
    ['Agent', `${row.agent} · session ${row.session.slice(0, 8)}`],
    ['Connection', row.connection !== undefined ? whereLine(row.connection) : undefined],
    ['Tool', row.tool],
    ['Action', r?.action],
    ['Window', w !== undefined && !screen ? windowLine(w) : undefined],
    ['Element', screen ? undefined : targetLabel(r)],
    ['Automation id', el?.automation_id],
    ['Text', typedText(r)],
    ['Keys', r?.action === 'key' || r?.action === 'hold_key' ? r.screen?.keys : undefined],
    ['Value', change !== undefined ? `${change.before ?? '(none)'} → ${change.after ?? '(not read back)'}` : undefined],
    ['Decision', d !== undefined ? `${decisionLabel(row) ?? d.verdict} at ${new Date(d.at).toLocaleTimeString()}` : undefined],
    ['Reason', reasonOf(row)],
    ['Outcome', resultWords(row)],
    ['Ran', r !== undefined ? (r.action_call_made === 'unknown' ? 'unknown' : r.action_call_made ? 'yes' : 'no') : undefined],
    ['Changed state', r?.changed_state !== undefined ? `it also changed ${r.changed_state.join(', ')}` : undefined],
    [
      'Read back',
      r?.after_read !== undefined && r.after_read.status !== 'full'
        ? `${r.after_read.status}${r.after_read.unread ? `: ${r.after_read.unread.join(', ')}` : ''}`
        : undefined,
    ],
    ['Path', screen ? undefined : r?.path],
    ['Duration', `${Math.round(row.durationMs)} ms`],
    ['Records', row.records.map((e) => `#${e.seq} ${e.tool} ${e.outcome}`).join(' · ')],
  ];
  return fields.filter((f): f is [string, string] => f[1] !== undefined && f[1] !== '');
}

/** Everything the search looks through for a row, lower-cased: tool, agent, action, element, window, text (masked), reason, decision, connection. */
export function searchText(row: ReceiptRow): string {
  const r = row.receipt;
  return [
    row.tool,
    row.agent,
    actLine(row),
    targetLabel(r),
    r?.target?.automation_id,
    r?.window?.title,
    r?.window?.app,
    r?.screen?.window?.title,
    r?.screen?.window?.app,
    reasonOf(row),
    decisionLabel(row),
    row.outcome,
    row.connection?.name,
    row.connection?.where,
  ]
    .filter((x) => x !== undefined)
    .join('\n')
    .toLowerCase();
}
