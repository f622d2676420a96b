import type { ElementField, Selector } from '../../protocol/index.js';
import type { NativeNode } from './backend.js';
import { fold } from './text.js';

/** Roles compare case-insensitively and ignore `_`, `-` and spaces (CheckBox = check_box). */
function normRole(role: string): string {
  return fold(role).replace(/[\s_-]/g, '');
}

/** Roles whose name is the text they show, which value_contains reads where they have no value (docs/tools.md#selectors). */
const TEXT_ROLES = new Set(['label', 'heading', 'paragraph', 'cell', 'list_item', 'link', 'status_bar', 'tool_tip']);

/** The result of testing one node: a match, a definite mismatch, or the unread fields that prevent a decision. */
export type MatchResult = 'yes' | 'no' | ElementField[];

/** Tests a node against a selector with AND semantics. A definite mismatch wins over an unread field. */
export function matchNode(node: NativeNode, selector: Selector): MatchResult {
  const unread: ElementField[] = [];
  const text = (field: ElementField, value: string | undefined, test: (v: string) => boolean): boolean => {
    if (node.unread.has(field)) {
      unread.push(field);
      return true;
    }
    return value !== undefined && test(value);
  };
  if (selector.automation_id !== undefined && !text('automation_id', node.automationId, (v) => v === selector.automation_id)) return 'no';
  if (selector.role !== undefined) {
    const want = normRole(selector.role);
    if (normRole(node.role) !== want && (node.nativeRole === undefined || normRole(node.nativeRole) !== want)) return 'no';
  }
  if (selector.name !== undefined) {
    const want = fold(selector.name);
    if (!text('name', node.name ?? '', (v) => fold(v) === want)) return 'no';
  }
  if (selector.name_contains !== undefined) {
    const want = fold(selector.name_contains);
    if (!text('name', node.name ?? '', (v) => fold(v).includes(want))) return 'no';
  }
  if (selector.value_contains !== undefined) {
    if (node.state?.password === true) return 'no';
    const want = fold(selector.value_contains);
    // The text an element shows: its value, or the name of a text element that has none (a label, Chromium's static text).
    const shown = node.value ?? (TEXT_ROLES.has(node.role) ? node.name : undefined);
    if (!text('value', shown, (v) => fold(v).includes(want))) return 'no';
  }
  return unread.length > 0 ? unread : 'yes';
}
