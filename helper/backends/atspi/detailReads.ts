// What one object's value, text and action names are read from, and the calls that read them: the
// per-object reads of a detail pass (AppCache.details), by the toolkit's profile
// (docs/compatibility.md#text).
import type { Deadline } from '../../core/deadline.js';
import { I, type AtspiNode } from './atspiNode.js';
import type { A11yBus } from './dbus.js';
import { formatNumber, str } from './readSupport.js';
import { NULL_PATH, asRef } from './refs.js';
import type { ToolkitProfile } from './toolkits.js';

/** Largest text read for a value; answers cut it further to max_text_chars. */
const MAX_VALUE_READ = 20_001;
/** Canonical AT-SPI action names (GTK, Qt, Chromium) whose English localized forms only differ in case. */
const KNOWN_ACTIONS = new Set([
  'click',
  'press',
  'activate',
  'toggle',
  'expand or contract',
  'expand',
  'collapse',
  'jump',
  'open',
  'select',
  'check',
  'uncheck',
  'edit',
  'showcontextmenu',
  'show menu',
  'menu',
  'increment',
  'decrement',
  'switch',
  'scroll',
]);

/** Roles whose text is what they show, read as their value where the toolkit keeps a document's text in them (ToolkitProfile.contentText). */
const CONTENT_ROLES = new Set(['paragraph', 'heading', 'label', 'status_bar', 'list_item', 'cell', 'link', 'group', 'alert', 'tool_tip', 'header']);
/** U+FFFC stands in a hypertext for each embedded child; the children are listed in the tree. */
const EMBEDDED = /\uFFFC/g;

/**
 * Canonical action names in one GetActions call. GetActions answers localized names (GTK3:
 * "Click"); those that fold to a known canonical English name are taken as such, any other
 * is asked for with GetName(i), so a translated desktop still gets canonical names.
 */
export async function actionNames(bus: A11yBus, node: AtspiNode, deadline: Deadline): Promise<string[]> {
  const [list] = await bus.call(node.bus, node.path, I.action, 'GetActions', deadline.remaining());
  const localized = (Array.isArray(list) ? (list as unknown[][]) : []).slice(0, 32).map((a) => str(a[0]));
  return Promise.all(
    localized.map(async (name, i) => {
      const lower = name.toLowerCase();
      if (KNOWN_ACTIONS.has(lower) || (name !== '' && name === lower && /^[a-z0-9._-]+$/.test(name))) return lower;
      return str((await bus.call(node.bus, node.path, I.action, 'GetName', deadline.remaining(), 'i', [i]))[0]);
    }),
  );
}

/** What a node's value is read from, if anything (docs/compatibility.md#text). */
function valueSource(profile: ToolkitProfile, node: AtspiNode): 'selected_item' | 'number' | 'text' | 'content' | undefined {
  const text = node.interfaces.has(I.text);
  const editable = node.patterns.includes('value') || node.role === 'edit';
  // A combo box that cannot be typed into shows its selected item (its own selection, or its popup list's).
  if (node.role === 'combo_box' && !editable) return node.interfaces.has(I.selection) || node.childCount > 0 ? 'selected_item' : text ? 'text' : undefined;
  // A cell's text is what it shows (LibreOffice answers 0 as the number of a text cell).
  if (node.interfaces.has(I.value) && !(text && node.role === 'cell') && !profile.meaninglessValue.has(node.role)) return 'number';
  if (text && editable) return 'text';
  // A document's or paragraph's text, where the toolkit keeps the text there and not in elements of its own.
  if (text && profile.contentText === 'containers' && (CONTENT_ROLES.has(node.role) || node.role === 'document' || node.role === 'paragraph')) return 'content';
  return undefined;
}

/** Objects whose value or text the answer carries. */
export function hasValue(profile: ToolkitProfile, node: AtspiNode): boolean {
  return valueSource(profile, node) !== undefined;
}

/**
 * The object's text as it shows, read with the character count the provider reports where it
 * answers "" past the end (Gecko, LibreOffice, Qt), bounded by MAX_VALUE_READ.
 */
async function readText(bus: A11yBus, profile: ToolkitProfile, node: AtspiNode, deadline: Deadline): Promise<string> {
  let end = MAX_VALUE_READ;
  if (profile.textEnd === 'exact') {
    const count = Number(await bus.getProperty(node.bus, node.path, I.text, 'CharacterCount', deadline.remaining()));
    if (!Number.isFinite(count) || count <= 0) return '';
    end = Math.min(count, MAX_VALUE_READ);
  }
  const [text] = await bus.call(node.bus, node.path, I.text, 'GetText', deadline.remaining(), 'ii', [0, end]);
  return str(text);
}

/** The selected item's name of a combo box: its own selection, or its popup list's (Gecko puts the selection on the list). */
async function selectedItem(bus: A11yBus, node: AtspiNode, nodes: ReadonlyMap<string, AtspiNode>, deadline: Deadline): Promise<string> {
  let holder: { bus: string; path: string } | undefined = node.interfaces.has(I.selection) ? node : undefined;
  if (holder === undefined) {
    const first = node.children?.[0] !== undefined ? nodes.get(node.children[0]) : undefined;
    if (first !== undefined) holder = first.interfaces.has(I.selection) ? first : undefined;
    else {
      const [child] = await bus.call(node.bus, node.path, I.accessible, 'GetChildAtIndex', deadline.remaining(), 'i', [0]);
      const ref = asRef(child);
      if (ref !== undefined && ref.path !== NULL_PATH) holder = ref;
    }
  }
  if (holder === undefined) return '';
  const [child] = await bus.call(holder.bus, holder.path, I.selection, 'GetSelectedChild', deadline.remaining(), 'i', [0]);
  const ref = asRef(child);
  return ref === undefined || ref.path === NULL_PATH ? '' : str(await bus.getProperty(ref.bus, ref.path, I.accessible, 'Name', deadline.remaining()));
}

/** Reads a node's value (or text) into `node.value`, from what valueSource says it is read from. */
export async function readValue(
  bus: A11yBus,
  profile: ToolkitProfile,
  node: AtspiNode,
  deadline: Deadline,
  nodes: ReadonlyMap<string, AtspiNode>,
): Promise<void> {
  switch (valueSource(profile, node)) {
    case 'selected_item':
      // A combo box's value is its selected item (UIA's ValuePattern on a combo box says the same).
      node.value = await selectedItem(bus, node, nodes, deadline);
      return;
    case 'number':
      node.value = formatNumber(Number(await bus.getProperty(node.bus, node.path, I.value, 'CurrentValue', deadline.remaining())));
      return;
    case 'text':
      node.value = await readText(bus, profile, node, deadline);
      return;
    case 'content': {
      // A paragraph's text without the marks of its embedded children (they are in the tree), and none when it only repeats the name.
      const text = (await readText(bus, profile, node, deadline)).replace(EMBEDDED, '').trim();
      if (text !== '' && text !== (node.name ?? '').trim()) node.value = text;
      else delete node.value;
      return;
    }
    case undefined:
      return;
  }
}
