import type { Element } from './elements.js';

// The compact text answer of the accessibility tools (docs/tools.md#compact-text-format): one
// element a line. The supervisor renders it; the helper counts a read's tokens by it, so that a
// token budget is spent on what the agent is sent.

/** Patterns shown as the actions they enable; focus and scroll_into_view work on nearly everything and are left out. */
const ACTION_OF: Record<string, string> = {
  invoke: 'invoke',
  value: 'set_value',
  range_value: 'set_value',
  toggle: 'toggle',
  expand_collapse: 'expand/collapse',
  selection_item: 'select',
};

const q = (s: string): string => JSON.stringify(s);

/** The notable states of an element: defaults (enabled, not focused…) are left out. */
function states(e: Element): string[] {
  const s = e.state;
  const out: string[] = [];
  if (s.enabled === false) out.push('disabled');
  if (s.focused === true) out.push('focused');
  if (s.checked === true) out.push('checked');
  else if (s.checked === 'mixed') out.push('mixed');
  else if (s.checkable === true) out.push('unchecked');
  if (s.expandable === true) out.push(s.expanded === true ? 'expanded' : 'collapsed');
  if (s.selected === true) out.push('selected');
  if (s.offscreen === true) out.push('offscreen');
  if (s.read_only === true) out.push('readonly');
  if (s.modal === true) out.push('modal');
  if (s.password === true) out.push('password');
  return out;
}

/**
 * One element on one line, e.g. `button "Save" #save_btn [invoke] {focused} ~T3xk…`:
 * role, name, value, automation id, enabled actions, notable states, unread fields, handle.
 */
export function elementLine(e: Element): string {
  const parts = [e.role === 'unknown' && e.native_role !== undefined ? e.native_role : e.role];
  if (e.name !== undefined) parts.push(q(e.name));
  if (e.redacted === true) parts.push('=(redacted)');
  else if (e.value !== undefined) parts.push(`=${q(e.value)}`);
  if (e.automation_id !== undefined) parts.push(`#${e.automation_id}`);
  const acts = [...new Set(e.patterns.map((p) => ACTION_OF[p]).filter((a): a is string => a !== undefined))];
  if (acts.length > 0) parts.push(`[${acts.join(',')}]`);
  const st = states(e);
  if (st.length > 0) parts.push(`{${st.join(',')}}`);
  if (e.unread !== undefined && e.unread.length > 0) parts.push(`?unread:${e.unread.join(',')}`);
  parts.push(`~${e.target ?? e.key}`);
  return parts.join(' ');
}

/** Characters a target handle takes in the text answer (`~T` and 22 characters), which the supervisor puts where the key is. */
export const TARGET_CHARS = 24;

/** Approximate tokens (about 4 characters a token) of an element's line in the text answer, at `depth`, with its handle. */
export function lineTokens(e: Element, depth: number): number {
  const key = e.key.length;
  return Math.ceil((elementLine(e).length - key + Math.max(key, TARGET_CHARS) + depth + 1) / 4);
}
