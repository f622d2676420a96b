import {
  elementLine,
  type Element,
  type ElementFindAnswer,
  type ErrorInfo,
  type Receipt,
  type WindowInfo,
  type WindowListAnswer,
  type WindowReadAnswer,
} from '../../../protocol/index.js';
import { screenLine } from './renderScreen.js';

export { elementLine };

const q = (s: string): string => JSON.stringify(s);

function windowLine(w: WindowInfo): string {
  const r = w.rect === undefined ? '' : ` ${w.rect.w}x${w.rect.h}@${w.rect.x},${w.rect.y}`;
  return `${w.foreground ? '* ' : ''}${q(w.title)} window=${w.window} app=${q(w.app)} pid=${w.pid}${r}`;
}

function cuts(truncated: readonly string[], notes: readonly string[]): string[] {
  return truncated.length === 0 ? [] : [`cut: ${truncated.join(', ')}`, ...notes.map((n) => `  ${n}`)];
}

/** window_list as lines, foreground first (marked `*`). */
export function renderWindowList(a: WindowListAnswer): string {
  return [`${a.windows.length} windows${a.total_known ? '' : ' (list incomplete)'}`, ...a.windows.map(windowLine), ...cuts(a.truncated_by, a.notes)].join('\n');
}

function tree(els: readonly Element[], depth: number, out: string[]): void {
  for (const e of els) {
    out.push(`${' '.repeat(depth)}${elementLine(e)}`);
    if (e.children !== undefined) tree(e.children, depth + 1, out);
  }
}

/** window_read as an indented tree (one space a level), or a delta as +/~/- lines. */
export function renderWindowRead(a: WindowReadAnswer): string {
  const head = [
    `${windowLine(a.window)}`,
    `observation ${a.observation} ${a.mode}${a.reset_reason !== undefined ? ` (full because ${a.reset_reason})` : ''}; ${a.node_count} elements; ${a.read_ms} ms`,
  ];
  const out = [...head, ...cuts(a.truncated_by, a.notes)];
  if (a.mode === 'delta' && a.delta !== undefined) {
    const d = a.delta;
    if (d.added.length + d.changed.length + d.removed.length === 0 && d.order === undefined) out.push('no changes');
    for (const x of d.added) out.push(`+ ${elementLine(x.element)}`);
    for (const x of d.changed) out.push(`~ ${elementLine(x.element)}`);
    for (const k of d.removed) out.push(`- ${k}`);
    if (d.order !== undefined) out.push(`order: ${d.order.join(' ')}`);
  } else if (a.format === 'flat') {
    for (const e of a.elements ?? []) out.push(`${' '.repeat(e.depth ?? 0)}${elementLine(e)}`);
  } else {
    tree(a.elements ?? [], 0, out);
  }
  return out.join('\n');
}

/** element_find: the three distinct answers, then the matches. */
export function renderFind(a: ElementFindAnswer): string {
  const verdict =
    a.match_count > 0
      ? `${a.match_count} match${a.match_count === 1 ? '' : 'es'}${a.searched_whole_window ? '' : ` (search incomplete: ${a.reason ?? 'cut'})`}`
      : a.searched_whole_window
        ? 'not found (searched the whole window)'
        : `could not decide: ${a.reason ?? 'the search was cut'}`;
  const out = [verdict, ...a.matches.map((m) => elementLine(m)), ...cuts(a.truncated_by, a.notes)];
  for (const u of a.unreadable_candidates ?? [])
    out.push(`unreadable: ${u.role}${u.name !== undefined ? ` ${q(u.name)}` : ''} did not answer ${u.unread.join(', ')}`);
  return out.join('\n');
}

/** A receipt: what was decided, what was called, and what the element looks like now. */
export function renderReceipt(r: Receipt): string {
  const out = [`receipt ${r.receipt_id}: ${r.action}${r.text !== undefined ? ` ${q(r.text)}` : ''} → ${r.outcome}`];
  if (r.decision !== undefined) out.push(`decision: ${r.decision.verdict} by ${r.decision.by}${r.decision.note !== undefined ? ` (${r.decision.note})` : ''}`);
  if (r.refusal !== undefined) out.push(`refused: ${r.refusal.code}: ${r.refusal.detail}`, ...candidateLines(r.refusal));
  if (r.error !== undefined) out.push(`error: ${r.error.code}: ${r.error.detail}`);
  if (r.target !== undefined) out.push(`target: ${elementLine(r.target)}`);
  if (r.method !== undefined) out.push(`method: ${r.method}`);
  if (r.screen !== undefined) out.push(`screen: ${screenLine(r.screen)}`);
  if (r.outcome !== 'pending' && r.outcome !== 'refused' && r.screen !== undefined) out.push(`call: ${r.path ?? '-'} (made: ${String(r.action_call_made)})`);
  else if (r.outcome !== 'pending' && r.outcome !== 'refused') {
    out.push(
      `call: ${r.path ?? '-'} (made: ${String(r.action_call_made)}); verification: ${r.verification}${r.verification_detail !== undefined ? ` (${r.verification_detail})` : ''}`,
    );
    out.push(r.after !== undefined ? `after: ${elementLine(r.after)}` : `after: ${r.after_read.status}`);
  }
  if (r.changed_state !== undefined) out.push(`changed beyond the view: ${r.changed_state.join(', ')}`);
  if (r.outcome === 'pending') out.push('waiting for a person to approve; call action_wait with this receipt_id to keep waiting');
  return out.join('\n');
}

/**
 * An ambiguous refusal's candidates, one line each with the nth that picks it (selector + nth) and
 * its target when it has one; how many more matched is said, never hidden.
 */
export function candidateLines(e: ErrorInfo): string[] {
  const candidates = e.code === 'ambiguous' ? e.data?.['candidates'] : undefined;
  if (!Array.isArray(candidates)) return [];
  const count = typeof e.data?.['match_count'] === 'number' ? e.data['match_count'] : candidates.length;
  const lines = (candidates as (Element & { nth?: number })[]).map((c) => {
    const at = c.rect === undefined ? '' : ` @${c.rect.x},${c.rect.y} ${c.rect.w}x${c.rect.h}`;
    return `  nth ${c.nth ?? '?'}: ${elementLine(c)}${at}`;
  });
  const more = count - candidates.length;
  return [`candidates (${candidates.length} of ${count}${more > 0 ? `; ${more} more not listed: narrow the selector` : ''}):`, ...lines];
}

/** A tool error as text. */
export function renderError(e: ErrorInfo): string {
  return `error ${e.code}: ${e.detail}${e.data !== undefined ? `\n${JSON.stringify(e.data)}` : ''}`;
}
