// What the accessibility tree names at a screen point, and which element has the keyboard focus, for
// the screen tier's cards and receipts. Component.GetAccessibleAtPoint answers the direct child
// only, so the lookup descends from the window until no child contains the point. Some containers
// answer no child at all although one contains the point (GTK's notebook page, a scrolled
// viewport): there the lookup asks the known children's extents itself, so a click in a text area
// is named as that text area and not as the tab around it.
import type { PhysicalRect, PointElement } from '../../../protocol/index.js';
import type { Deadline } from '../../core/deadline.js';
import type { AppCache } from './appCache.js';
import { I, type AtspiNode } from './atspiNode.js';
import type { A11yBus } from './dbus.js';
import { NULL_PATH, asRef, keyOf } from './refs.js';

/** Deepest descent; real trees are far shallower. */
const MAX_DEPTH = 40;
/** AT-SPI's ATSPI_COORD_TYPE_SCREEN. */
const COORD_SCREEN = 0;
/** Children whose extents a container that answers no child is asked for; a text area's page has a handful. */
const MAX_CHILDREN_ASKED = 64;

function describe(node: AtspiNode | undefined, key: string): PointElement {
  if (node === undefined) return { key, role: 'unknown', password: false };
  // A password field's name is its label, never its text.
  const out: PointElement = { key, role: node.role, password: node.state?.password === true };
  if (node.name !== undefined && node.name !== '') out.name = node.name.slice(0, 500);
  return out;
}

/** The deepest element under a screen point, descending from `frame` (the frame itself when no child contains it). */
export async function elementAtPoint(
  a11y: A11yBus,
  cache: AppCache,
  frame: AtspiNode,
  x: number,
  y: number,
  deadline: Deadline,
): Promise<PointElement | undefined> {
  let current = frame;
  let found: PointElement | undefined;
  for (let depth = 0; depth < MAX_DEPTH && deadline.remaining() > 0; depth++) {
    let reply: unknown[];
    try {
      reply = await a11y.call(current.bus, current.path, I.component, 'GetAccessibleAtPoint', Math.min(deadline.remaining(), 1000), 'iiu', [
        x,
        y,
        COORD_SCREEN,
      ]);
    } catch {
      break;
    }
    const ref = asRef(reply[0]);
    const key =
      ref === undefined || ref.path === NULL_PATH || ref.path === current.path
        ? await childContaining(a11y, cache, current, x, y, deadline)
        : keyOf(ref.bus, ref.path);
    if (key === undefined) break;
    const node = cache.nodes.get(key);
    found = describe(node, key);
    if (node === undefined) break;
    current = node;
  }
  if (found === undefined) return describe(frame, frame.key);
  const node = cache.nodes.get(found.key ?? '');
  return node === undefined ? found : withRect(a11y, node, found, deadline);
}

/** Where an element is on the screen, asked of its application now (its cache may be older than a move); undefined when it cannot say. */
async function extentsOf(a11y: A11yBus, node: AtspiNode, deadline: Deadline): Promise<PhysicalRect | undefined> {
  if (deadline.remaining() <= 0) return undefined;
  try {
    const [ext] = await a11y.call(node.bus, node.path, I.component, 'GetExtents', Math.min(deadline.remaining(), 1000), 'u', [COORD_SCREEN]);
    const [x, y, width, height] = (ext as number[]).map(Number) as [number, number, number, number];
    return width > 0 && height > 0 ? { x, y, width, height } : undefined;
  } catch {
    return undefined;
  }
}

/** The element described, with its rectangle when its application says where it is. */
async function withRect(a11y: A11yBus, node: AtspiNode, element: PointElement, deadline: Deadline): Promise<PointElement> {
  const rect = await extentsOf(a11y, node, deadline);
  return rect === undefined ? element : { ...element, rect };
}

/** The last (topmost) known, shown child of `node` whose extents contain the point; undefined when none does. */
async function childContaining(a11y: A11yBus, cache: AppCache, node: AtspiNode, x: number, y: number, deadline: Deadline): Promise<string | undefined> {
  let found: string | undefined;
  for (const key of (node.children ?? []).slice(0, MAX_CHILDREN_ASKED)) {
    const child = cache.nodes.get(key);
    if (child === undefined || child.state?.offscreen === true || deadline.remaining() <= 0) continue;
    // A child that cannot say where it is is not where the point is.
    const r = await extentsOf(a11y, child, deadline);
    if (r !== undefined && x >= r.x && y >= r.y && x < r.x + r.width && y < r.y + r.height) found = key;
  }
  return found;
}

/**
 * The element of the application that has the keyboard focus, as its cache knows it (states follow
 * events), with where it is now.
 */
export async function focusedElement(a11y: A11yBus, cache: AppCache, deadline: Deadline): Promise<PointElement | undefined> {
  let best: AtspiNode | undefined;
  for (const node of cache.nodes.values()) if (node.state?.focused === true) best = node;
  return best === undefined ? undefined : withRect(a11y, best, describe(best, best.key), deadline);
}
