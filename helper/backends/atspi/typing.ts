import { fail, OverseerError } from '../../../protocol/index.js';
import { DispatchError, type ActionPlan, type DispatchResult, type TypeStep, type Typist } from '../../core/backend.js';
import type { Deadline } from '../../core/deadline.js';
import { I, type AtspiNode } from './atspiNode.js';
import type { A11yBus } from './dbus.js';
import { S } from './roles.js';
import type { AtspiTreeSource } from './treeSource.js';

/**
 * set_value by typing (docs/tools.md#set-value-by-typing). Where an editable field offers no
 * EditableText (Chromium's web fields, LibreOffice Calc's cells) or offers one that changes
 * nothing (Gecko's web content, which lives in another process), the text is typed: the field is
 * focused through its own interface, its text selected and typed over, keys sent only while that
 * window has the keyboard and that field the focus. The card says so before a person decides.
 */

/** Whether set_value on this node is typed rather than set through EditableText. */
export function typesValue(source: AtspiTreeSource, node: AtspiNode): boolean {
  if (!node.patterns.includes('value')) return false;
  return !node.interfaces.has(I.editableText) || !source.cache.toolkit.editableTextWorks;
}

/** The keys that replace the node's text with `text`: a cell is typed over and entered; a field is selected, then typed over. */
export function typingSteps(node: AtspiNode, text: string): TypeStep[] {
  if (node.role === 'cell') return text === '' ? [{ keys: ['Delete'] }] : [{ text }, { keys: ['Return'] }];
  return [{ keys: ['Control_L', 'a'] }, text === '' ? { keys: ['BackSpace'] } : { text }];
}

/** Why this node's text is typed, for the card. */
function why(source: AtspiTreeSource, node: AtspiNode): string {
  if (node.interfaces.has(I.editableText)) return `${source.cache.toolkit.label} ignores its editable-text interface`;
  return 'it has no editable-text interface';
}

/** The plan the card shows; throws the typed reason typing cannot be done (before anyone is asked). */
export async function typingPlan(source: AtspiTreeSource, node: AtspiNode, text: string, typist: Typist | undefined): Promise<ActionPlan> {
  if (typist === undefined)
    throw fail('input_unavailable', `this ${node.role} takes text only by typing, and this helper has no keyboard`, { reason: 'no_keyboard' });
  // A line break in a one-line field would be Enter: it would submit the form, not add a line.
  if (node.states.has(S.singleLine) && /[\r\n]/.test(text))
    throw fail('invalid_argument', 'this field takes one line: a line break would be typed as Enter (which may submit the form); send the text without it');
  await typist.check();
  const how =
    node.role === 'cell'
      ? text === ''
        ? 'focus the cell, press Delete'
        : 'focus the cell, type over it, press Enter'
      : text === ''
        ? 'focus the field, select all (Ctrl+A), delete'
        : 'focus the field, select all (Ctrl+A), type over it';
  return { summary: `typed: bring its window to the front if needed, ${how} (${why(source, node)})` };
}

/**
 * Types the value (see the plan): the window is brought to the keyboard first, then the field is
 * focused (GrabFocus, the first call to the application), then typed into. A failure before the
 * field was focused is a refusal (nothing was asked of the application); after, a failed dispatch.
 */
export async function typeValue(
  bus: A11yBus,
  source: AtspiTreeSource,
  node: AtspiNode,
  text: string,
  typist: Typist | undefined,
  deadline: Deadline,
): Promise<DispatchResult> {
  await typingPlan(source, node, text, typist);
  const steps = typingSteps(node, text);
  const window = source.window;
  let focused = false;
  const focus = async (): Promise<void> => {
    focused = true;
    await bus.call(node.bus, node.path, I.component, 'GrabFocus', deadline.remaining());
  };
  try {
    const { path } = await (typist as Typist).type({ pid: window.process.pid, title: window.info.title, key: node.key, focus }, steps);
    const keys = steps.map((s) => ('text' in s ? `${[...s.text].length} characters` : s.keys.join('+'))).join(', ');
    return { path: `atspi:Component.GrabFocus + ${path} (${keys})`, ok: true };
  } catch (error) {
    if (!(error instanceof OverseerError) || !focused) throw error;
    const sent = Number(error.info.data?.['sent'] ?? 0);
    const of = Number(error.info.data?.['of'] ?? steps.length);
    throw new DispatchError(
      `${error.info.detail} (the field was focused${sent > 0 ? `; ${sent} of ${of} pieces were typed before it stopped` : '; nothing was typed'})`,
      true,
      'failed',
      error.code,
      error.info.data,
    );
  }
}
