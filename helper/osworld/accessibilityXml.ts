// Parses the accessibility tree an OSWorld server answers on GET /accessibility: `{"AT": xml}`, the
// XML made by walking AT-SPI (an element per accessible named by its role, spaces as "-"; `name`;
// `st:<state>="true"`; `attr:<attribute>`; `cp:screencoord="(x, y)"` and `cp:size="(w, h)"` for
// visible, showing accessibles; `val:value|min|max|step`; `act:<action>_desc` and `_kb`; the text as
// element text). The prefixes are taken from the namespace declarations, so both spellings of the
// namespaces (OSWorld's `https://accessibility.ubuntu.example.org/ns/state` and the older
// `uri:deskat:state.at-spi.gnome.org`) are read. The VM is not trusted: depth and node counts are
// bounded and malformed XML is refused, never guessed at.

/** One accessible as the XML describes it. */
export interface AxNode {
  /** The element name: the AT-SPI role name with spaces as "-" (`push-button`). */
  role: string;
  name: string;
  /** State names, lower case with "_" as the XML writes them (`multi_line`). */
  states: Set<string>;
  attributes: Record<string, string>;
  /** Screen rectangle, when the server wrote one (only for visible, showing accessibles). */
  rect?: { x: number; y: number; w: number; h: number };
  /** val:value. */
  value?: string;
  /** The accessible's text (Text interface), when it has any. */
  text?: string;
  /** Action names (from `act:<name>_desc`). */
  actions: string[];
  children: AxNode[];
  /** Child indexes from the root, e.g. "2/0/1": where the node sits in this answer. */
  path: string;
  /** Its children and text were not read in this parse (see Descend): it has some, but `children` is empty. */
  cut?: true;
}

const MAX_DEPTH = 256;
const MAX_NODES = 200_000;

/** The namespace kinds the tree uses, by the word that names them in either spelling of the URI. */
const KINDS: Record<string, 'st' | 'attr' | 'cp' | 'val' | 'act' | 'txt'> = {
  state: 'st',
  attributes: 'attr',
  component: 'cp',
  value: 'val',
  action: 'act',
  text: 'txt',
};

function kindOf(uri: string): string | undefined {
  const word = /\/ns\/([a-z]+)$/.exec(uri)?.[1] ?? /^uri:deskat:([a-z]+)\.at-spi\.gnome\.org$/.exec(uri)?.[1];
  return word === undefined ? undefined : KINDS[word];
}

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (_, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" } as Record<string, string>)[e] ?? '';
  });
}

/** "(12, 34)" → [12, 34]. */
function pair(text: string | undefined): [number, number] | undefined {
  const m = /^\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)$/.exec(text ?? '');
  return m === null ? undefined : [Number(m[1]), Number(m[2])];
}

/** Which elements' children a parse reads, by the element's path ("" for the desktop, "2/0" …) and depth (the desktop is 0). */
export type Descend = (path: string, depth: number) => boolean;

/** Reads every element. */
const ALL: Descend = () => true;
/** Reads the desktop, its applications and their top-level windows, not what the windows hold. */
export const WINDOWS_ONLY: Descend = (_path, depth) => depth < 2;

/**
 * A copy of `text` that holds nothing else: V8 keeps a longer substring as a slice of the string it
 * came from, so a window title kept for later would keep the whole XML (tens of megabytes) alive.
 */
function own(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, 'utf8').toString('utf8');
}

/** An element whose end tag is still to come: its node (none when it is skipped) and its text so far. */
interface Open {
  tag: string;
  node: AxNode | undefined;
  /** Whether its children are read (the node's Descend answer). */
  reads: boolean;
  text: string;
}

/**
 * The accessibility tree of one /accessibility answer; its root is the desktop (`desktop-frame`).
 * Elements whose children `descend` declines are kept with no children and no text, marked `cut`:
 * their content is still checked for well-formedness and counted against the bounds, but nothing of
 * it is kept, so a listing of a VM with a huge document open costs little memory.
 */
export function parseAccessibility(xml: string, descend: Descend = ALL): AxNode {
  const stack: Open[] = [];
  const prefixes = new Map<string, string>();
  let root: AxNode | undefined;
  let count = 0;
  let i = 0;
  const attrRe = /\s*([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/y;
  const nameRe = /<([^\s/>]+)/y;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const textEnd = lt === -1 ? xml.length : lt;
    const top = stack[stack.length - 1];
    if (textEnd > i && top?.node !== undefined && top.reads) top.text += decode(xml.slice(i, textEnd));
    if (lt === -1) break;
    if (xml.startsWith('<?', lt)) i = xml.indexOf('?>', lt) + 2;
    else if (xml.startsWith('<!--', lt)) i = xml.indexOf('-->', lt) + 3;
    else if (xml.startsWith('<![CDATA[', lt)) {
      const end = xml.indexOf(']]>', lt);
      if (end === -1) throw new Error('unterminated CDATA');
      if (top?.node !== undefined && top.reads) top.text += xml.slice(lt + 9, end);
      i = end + 3;
    } else if (xml.startsWith('<!', lt)) throw new Error('a DOCTYPE or declaration is not accepted');
    else if (xml.startsWith('</', lt)) {
      const end = xml.indexOf('>', lt);
      if (end === -1) throw new Error('unterminated end tag');
      const tag = xml.slice(lt + 2, end).trim();
      const open = stack.pop();
      if (open?.tag !== tag) throw new Error(`end tag </${tag}> does not close <${open?.tag ?? ''}>`);
      if (open.node !== undefined && open.reads) setText(open.node, open.text);
      i = end + 1;
    } else {
      nameRe.lastIndex = lt;
      const m = nameRe.exec(xml);
      if (m === null) throw new Error(`malformed tag at ${lt}`);
      const tag = m[1] ?? '';
      // An element is built when its parent reads its children (the root always is).
      const parent = top?.node !== undefined && top.reads ? top.node : undefined;
      const builds = stack.length === 0 || parent !== undefined;
      const attrs: [string, string][] = [];
      let j = nameRe.lastIndex;
      for (;;) {
        attrRe.lastIndex = j;
        const a = attrRe.exec(xml);
        if (a === null) break;
        if (builds) attrs.push([a[1] ?? '', decode(a[3] ?? a[4] ?? '')]);
        j = attrRe.lastIndex;
      }
      while (xml[j] === ' ' || xml[j] === '\n' || xml[j] === '\t' || xml[j] === '\r') j++;
      const selfClosing = xml.startsWith('/>', j);
      if (!selfClosing && xml[j] !== '>') throw new Error(`malformed attributes in <${tag}>`);
      if (++count > MAX_NODES) throw new Error(`more than ${MAX_NODES} elements`);
      let node: AxNode | undefined;
      let reads = false;
      if (stack.length === 0) {
        if (root !== undefined) throw new Error('more than one root element');
        for (const [k, v] of attrs) if (k.startsWith('xmlns:')) prefixes.set(k.slice(6), kindOf(v) ?? `other:${v}`);
        node = root = element(tag, attrs, '', prefixes, true);
      } else if (parent !== undefined) {
        const path = parent.path === '' ? String(parent.children.length) : `${parent.path}/${parent.children.length}`;
        node = element(tag, attrs, path, prefixes, stack.length <= 2);
        parent.children.push(node);
      }
      if (node !== undefined) {
        reads = descend(node.path, stack.length);
        if (!reads && !selfClosing) node.cut = true;
      }
      if (!selfClosing) {
        if (stack.length >= MAX_DEPTH) throw new Error(`deeper than ${MAX_DEPTH} elements`);
        stack.push({ tag, node, reads, text: '' });
      }
      i = j + (selfClosing ? 2 : 1);
    }
    if (i <= lt) throw new Error(`unterminated markup at ${lt}`);
  }
  if (root === undefined || stack.length > 0) throw new Error('the XML has no root or is cut short');
  return root;
}

/** An element's node from its tag and attributes; `kept` names are copied out of the XML (see own). */
function element(tag: string, attrs: readonly [string, string][], path: string, prefixes: ReadonlyMap<string, string>, kept: boolean): AxNode {
  const node: AxNode = { role: tag, name: '', states: new Set(), attributes: {}, actions: [], children: [], path };
  let coord: [number, number] | undefined;
  let size: [number, number] | undefined;
  for (const [k, v] of attrs) {
    const colon = k.indexOf(':');
    if (colon === -1) {
      if (k === 'name') node.name = kept ? own(v) : v;
      continue;
    }
    const prefix = k.slice(0, colon);
    const local = k.slice(colon + 1);
    const kind = prefixes.get(prefix) ?? prefix;
    if (kind === 'st' && v === 'true') node.states.add(local);
    else if (kind === 'attr') node.attributes[local] = v;
    else if (kind === 'cp' && local === 'screencoord') coord = pair(v);
    else if (kind === 'cp' && local === 'size') size = pair(v);
    else if (kind === 'val' && local === 'value') node.value = v;
    else if (kind === 'act' && local.endsWith('_desc')) node.actions.push(local.slice(0, -5));
  }
  if (coord !== undefined && size !== undefined) node.rect = { x: coord[0], y: coord[1], w: size[0], h: size[1] };
  return node;
}

/** A leaf's text as written; a container's only when it has some besides its children, trimmed. */
function setText(node: AxNode, text: string): void {
  if (text !== '' && node.children.length === 0) node.text = text;
  else if (text.trim() !== '') node.text = text.trim();
}

/** Unwraps the /accessibility answer (`{"AT": xml}`; a bare XML body is read too). */
export function accessibilityXmlOf(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && typeof (body as Record<string, unknown>)['AT'] === 'string') return (body as Record<string, string>)['AT'];
  return undefined;
}

/** A top-level window of the tree: a frame (or dialog, window) under an application. */
export interface AxWindow {
  node: AxNode;
  app: AxNode;
  /**
   * The window's id: its application's name, which instance of that name it is (in the desktop's
   * order), and its place among that application's windows: `osworld:<app>~<instance>/<window>`.
   * The VM names no processes, so this is all the identity a window has (docs/connections.md#osworld).
   */
  id: string;
  /** The application's identity: `osworld:<app>~<instance>`. */
  appId: string;
}

const WINDOW_ROLES = new Set(['frame', 'dialog', 'window', 'file-chooser', 'alert']);

/** The desktop's top-level windows, in the tree's order. */
export function topLevelWindows(desktop: AxNode): AxWindow[] {
  const out: AxWindow[] = [];
  const instances = new Map<string, number>();
  for (const app of desktop.children) {
    const instance = instances.get(app.name) ?? 0;
    instances.set(app.name, instance + 1);
    const appId = `osworld:${encodeURIComponent(app.name)}~${instance}`;
    let windowIndex = 0;
    for (const node of app.children) if (WINDOW_ROLES.has(node.role)) out.push({ node, app, appId, id: `${appId}/${windowIndex++}` });
  }
  return out;
}

/** The desktop's top-level windows in one /accessibility answer, what they hold left unread (WINDOWS_ONLY). */
export function desktopWindows(xml: string): AxWindow[] {
  return topLevelWindows(parseAccessibility(xml, WINDOWS_ONLY));
}

/**
 * The whole tree of the element at `path` (a window desktopWindows found in the same XML): only its
 * application's windows and its own content are built, the rest of the desktop is skipped.
 */
export function subtreeAt(xml: string, path: string): AxNode | undefined {
  const steps = path.split('/');
  // Below the element's depth only its own descendants are built (no other element there reads).
  const root = parseAccessibility(xml, (p, depth) => depth > steps.length || p === '' || `${path}/`.startsWith(`${p}/`));
  let node: AxNode | undefined = root;
  for (const step of steps) node = node?.children[Number(step)];
  return node;
}
