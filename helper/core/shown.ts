import { createHmac, randomBytes } from 'node:crypto';
import type { ShownState } from '../../protocol/index.js';
import type { NativeNode } from './backend.js';

/** Keys the value hashes; made per helper process and never sent, so a hash reveals nothing outside it. */
const KEY = randomBytes(32);

/** The hash of a value or text as it travels in a ShownState (password text included: it never leaves as text). */
function valueHash(value: string | undefined): string {
  return value === undefined ? 'none' : createHmac('sha256', KEY).update(value, 'utf8').digest('base64url').slice(0, 32);
}

/** The state of an element a person sees on an approval card: value or text, checked, selected, expanded, enabled. */
export function shownStateOf(node: NativeNode): ShownState {
  const s: ShownState = { value_hash: valueHash(node.value) };
  const st = node.state ?? {};
  if (st.checked !== undefined) s.checked = st.checked;
  if (st.selected !== undefined) s.selected = st.selected;
  if (st.expanded !== undefined) s.expanded = st.expanded;
  if (st.enabled !== undefined) s.enabled = st.enabled;
  return s;
}

/** The fields in which the element no longer shows what the card showed (`value` for the value or text). */
export function shownDifferences(shown: ShownState, now: ShownState): string[] {
  const out: string[] = [];
  if (shown.value_hash !== now.value_hash) out.push('value');
  for (const k of ['checked', 'selected', 'expanded', 'enabled'] as const) if (shown[k] !== now[k]) out.push(k);
  return out;
}
