import type { Deadline } from '../../core/deadline.js';
import type { ChildrenCut } from '../../core/backend.js';
import { I, type AtspiNode } from './atspiNode.js';
import type { A11yBus } from './dbus.js';
import { NULL_PATH, asRef, type Ref } from './refs.js';
import { S } from './roles.js';

/**
 * How the children of one object are asked for, bounded in what the application must compute
 * (docs/compatibility.md#never-harm-an-application). `GetChildren` makes the application build its
 * whole list at once: a LibreOffice sheet declares 2^31 children and soffice, asked for them, stops
 * answering everyone for good. So:
 *
 * - up to ENUMERATE_MAX children: `GetChildren`, as ever;
 * - a container that manages its descendants (MANAGES_DESCENDANTS: spreadsheets, huge tables and
 *   lists) with more: its visible part only, found by asking what lies at its corners
 *   (`Component.GetAccessibleAtPoint`) and read cell by cell (`Table.GetAccessibleAt`) or child by
 *   child (`GetChildAtIndex`) within that range;
 * - any other object with more: its first `limit` children, one `GetChildAtIndex` each.
 */
export const ENUMERATE_MAX = 5000;
/** Most rows and columns of a visible part (a screen shows far fewer cells). */
const MAX_VISIBLE_ROWS = 200;
const MAX_VISIBLE_COLUMNS = 64;
/** Most cells of a visible part, whatever the budget: each costs the application a few calls. */
const MAX_VISIBLE_CELLS = 2500;
/** Calls in flight at once while reading a visible part. */
const CONCURRENCY = 32;

/** The children asked for, in order, and the cut that applies when they are not all of them. */
export interface ChildrenAnswer {
  refs: Ref[];
  cut?: ChildrenCut;
}

/** Whether reading this object's children must not enumerate them (see above). */
export function boundedChildren(node: AtspiNode): boolean {
  return node.childCount > ENUMERATE_MAX || (node.childCount < 0 && node.states.has(S.managesDescendants));
}

const ref = (value: unknown): Ref | undefined => {
  const r = asRef(value);
  return r === undefined || r.path === NULL_PATH ? undefined : r;
};

/** Spreadsheet columns as people name them: 0 → A, 25 → Z, 26 → AA. */
export function columnName(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    out = String.fromCharCode(65 + rem) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

/** A cell address in a spreadsheet's words ("A1") from its row and column (0-based). */
export const cellAddress = (row: number, column: number): string => `${columnName(column)}${row + 1}`;

/** Parses "AB12" into row 11, column 27; undefined for anything else. */
export function parseAddress(text: string): { row: number; column: number } | undefined {
  const m = /^([A-Z]{1,4})([1-9][0-9]{0,7})$/.exec(text.trim());
  if (m === null) return undefined;
  let column = 0;
  for (const ch of m[1] as string) column = column * 26 + (ch.charCodeAt(0) - 64);
  return { row: Number(m[2]) - 1, column: column - 1 };
}

/** Reads the children of a container without enumerating them: its visible part, or its first `limit`. */
export async function boundedChildList(bus: A11yBus, node: AtspiNode, deadline: Deadline, limit: number): Promise<ChildrenAnswer> {
  const manages = node.states.has(S.managesDescendants);
  if (manages) {
    const visible = node.interfaces.has(I.table) ? await visibleCells(bus, node, deadline, limit) : await visibleRange(bus, node, deadline, limit);
    if (visible !== undefined) return visible;
  }
  const total = node.childCount;
  const n = Math.min(limit, total < 0 ? limit : total);
  const refs = await indexed(bus, node, n, 0, deadline);
  const described = total < 0 ? 'an unknown number of' : total.toLocaleString('en-US');
  return {
    refs,
    cut: {
      cut: manages ? 'visible_part' : 'max_children',
      note: `${manages ? 'visible_part' : 'max_children'}: ${describe(node)} has ${described} children; only the first ${refs.length} were read (its visible part could not be found)`,
    },
  };
}

function describe(node: AtspiNode): string {
  return `${node.role}${node.name !== undefined && node.name !== '' ? ` "${node.name}"` : ''}`;
}

/** Children `from`..`from+n-1`, one GetChildAtIndex each; the ones that answer nothing are left out. */
async function indexed(bus: A11yBus, node: AtspiNode, n: number, from: number, deadline: Deadline): Promise<Ref[]> {
  const out: (Ref | undefined)[] = new Array<Ref | undefined>(n);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n && !deadline.expired()) {
      const i = next++;
      const [child] = await bus.call(node.bus, node.path, I.accessible, 'GetChildAtIndex', deadline.remaining(), 'i', [from + i]);
      out[i] = ref(child);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, n) }, worker));
  return out.filter((r): r is Ref => r !== undefined);
}

/** The object's rectangle on the screen, or undefined when it shows none. */
async function extents(bus: A11yBus, node: AtspiNode, deadline: Deadline): Promise<{ x: number; y: number; w: number; h: number } | undefined> {
  if (!node.interfaces.has(I.component)) return undefined;
  const [ext] = await bus.call(node.bus, node.path, I.component, 'GetExtents', deadline.remaining(), 'u', [0]);
  const [x, y, w, h] = (ext as number[]).map(Number) as [number, number, number, number];
  return x > -2_000_000_000 && w > 2 && h > 2 ? { x, y, w, h } : undefined;
}

/** The child at a screen point of the container (GetAccessibleAtPoint, screen coordinates). */
async function childAt(bus: A11yBus, node: AtspiNode, x: number, y: number, deadline: Deadline): Promise<Ref | undefined> {
  const [child] = await bus.call(node.bus, node.path, I.component, 'GetAccessibleAtPoint', deadline.remaining(), 'iiu', [Math.round(x), Math.round(y), 0]);
  return ref(child);
}

/** A cell's row and column: its address when the provider names cells so (LibreOffice), else its index in the table. */
async function cellPosition(bus: A11yBus, table: AtspiNode, cell: Ref, deadline: Deadline): Promise<{ row: number; column: number } | undefined> {
  const [index] = await bus.call(cell.bus, cell.path, I.accessible, 'GetIndexInParent', deadline.remaining());
  const i = Number(index);
  if (Number.isInteger(i) && i >= 0) {
    const [[row], [column]] = await Promise.all([
      bus.call(table.bus, table.path, I.table, 'GetRowAtIndex', deadline.remaining(), 'i', [i]),
      bus.call(table.bus, table.path, I.table, 'GetColumnAtIndex', deadline.remaining(), 'i', [i]),
    ]);
    if (Number(row) >= 0 && Number(column) >= 0) return { row: Number(row), column: Number(column) };
  }
  // Past 2^31 cells the index overflows (LibreOffice answers −1): its name is its address.
  const name = await bus.getProperty(cell.bus, cell.path, I.accessible, 'Name', deadline.remaining());
  return typeof name === 'string' ? parseAddress(name) : undefined;
}

/**
 * The visible cells of a table that manages its descendants: the cells at its top-left and
 * bottom-right corners bound the rows and columns shown; each cell is asked for with
 * Table.GetAccessibleAt, row by row, at most `limit`.
 */
async function visibleCells(bus: A11yBus, table: AtspiNode, deadline: Deadline, limit: number): Promise<ChildrenAnswer | undefined> {
  const box = await extents(bus, table, deadline);
  if (box === undefined) return undefined;
  const [first, last] = await Promise.all([
    childAt(bus, table, box.x + 1, box.y + 1, deadline),
    childAt(bus, table, box.x + box.w - 2, box.y + box.h - 2, deadline),
  ]);
  if (first === undefined || last === undefined) return undefined;
  const [from, to] = await Promise.all([cellPosition(bus, table, first, deadline), cellPosition(bus, table, last, deadline)]);
  if (from === undefined || to === undefined || to.row < from.row || to.column < from.column) return undefined;
  const [rows, columns] = await Promise.all([
    bus.getProperty(table.bus, table.path, I.table, 'NRows', deadline.remaining()).catch(() => -1),
    bus.getProperty(table.bus, table.path, I.table, 'NColumns', deadline.remaining()).catch(() => -1),
  ]);
  const rowEnd = Math.min(to.row, from.row + MAX_VISIBLE_ROWS - 1);
  const columnEnd = Math.min(to.column, from.column + MAX_VISIBLE_COLUMNS - 1);
  const width = columnEnd - from.column + 1;
  const wanted: { row: number; column: number }[] = [];
  const most = Math.min(limit, MAX_VISIBLE_CELLS);
  for (let r = from.row; r <= rowEnd && wanted.length < most; r++)
    for (let c = from.column; c <= columnEnd && wanted.length < most; c++) wanted.push({ row: r, column: c });
  const out: (Ref | undefined)[] = new Array<Ref | undefined>(wanted.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < wanted.length && !deadline.expired()) {
      const i = next++;
      const { row, column } = wanted[i] as { row: number; column: number };
      const [cell] = await bus.call(table.bus, table.path, I.table, 'GetAccessibleAt', deadline.remaining(), 'ii', [row, column]);
      out[i] = ref(cell);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, wanted.length) }, worker));
  const refs = out.filter((r): r is Ref => r !== undefined);
  const lastRead = wanted[refs.length - 1] ?? from;
  const size =
    Number(rows) >= 0 && Number(columns) >= 0
      ? `${Number(rows).toLocaleString('en-US')} rows × ${Number(columns).toLocaleString('en-US')} columns`
      : 'more cells than can be listed';
  const shown = `${cellAddress(from.row, from.column)}:${cellAddress(to.row, to.column)}`;
  const read = `${cellAddress(from.row, from.column)}:${cellAddress(lastRead.row, Math.min(columnEnd, from.column + width - 1))}`;
  return {
    refs,
    cut: {
      cut: 'visible_part',
      note: `visible_part: ${describe(table)} manages its descendants (${size}): only its visible cells ${shown} were read${read !== shown ? ` (${refs.length} of them, up to ${read}, within the budget)` : ''}; scroll it to read others`,
    },
  };
}

/** The visible children of a list that manages its descendants: the indexes at its top and bottom edges bound the range read. */
async function visibleRange(bus: A11yBus, list: AtspiNode, deadline: Deadline, limit: number): Promise<ChildrenAnswer | undefined> {
  const box = await extents(bus, list, deadline);
  if (box === undefined) return undefined;
  const [first, last] = await Promise.all([childAt(bus, list, box.x + 2, box.y + 2, deadline), childAt(bus, list, box.x + 2, box.y + box.h - 3, deadline)]);
  if (first === undefined) return undefined;
  const indexOf = async (r: Ref | undefined): Promise<number> =>
    r === undefined ? -1 : Number((await bus.call(r.bus, r.path, I.accessible, 'GetIndexInParent', deadline.remaining()))[0]);
  const [from, to] = await Promise.all([indexOf(first), indexOf(last)]);
  if (!Number.isInteger(from) || from < 0) return undefined;
  const end = Number.isInteger(to) && to >= from ? to : from + limit - 1;
  const n = Math.min(limit, end - from + 1);
  const refs = await indexed(bus, list, n, from, deadline);
  return {
    refs,
    cut: {
      cut: 'visible_part',
      note: `visible_part: ${describe(list)} manages its descendants (${list.childCount < 0 ? 'an unknown number of' : list.childCount.toLocaleString('en-US')} children): only the ${refs.length} visible ones from index ${from} were read; scroll it to read others`,
    },
  };
}
