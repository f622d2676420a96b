// What the accessibility tree names at a screen point, and which element has the keyboard focus, for
// the screen tier's cards and receipts. Component.GetAccessibleAtPoint answers the direct child
// only, so the lookup descends from the window until no child contains the point.
import type { PointElement } from '../../../protocol/index.js';
import type { Deadline } from '../../core/deadline.js';
import type { AppCache } from './appCache.js';
import { I, type AtspiNode } from './atspiNode.js';
import type { A11yBus } from './dbus.js';
import { NULL_PATH, asRef, keyOf } from './refs.js';

/** Deepest descent; real trees are far shallower. */
const MAX_DEPTH = 40;
/** AT-SPI's ATSPI_COORD_TYPE_SCREEN. */
const COORD_SCREEN = 0;

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
    if (ref === undefined || ref.path === NULL_PATH || ref.path === current.path) break;
    const key = keyOf(ref.bus, ref.path);
    const node = cache.nodes.get(key);
    found = describe(node, key);
    if (node === undefined) break;
    current = node;
  }
  return found ?? describe(frame, frame.key);
}

/** The element of the application that has the keyboard focus, as its cache knows it (states follow events). */
export function focusedElement(cache: AppCache): PointElement | undefined {
  let best: AtspiNode | undefined;
  for (const node of cache.nodes.values()) if (node.state?.focused === true) best = node;
  return best === undefined ? undefined : describe(best, best.key);
}
