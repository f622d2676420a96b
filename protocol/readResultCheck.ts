import { ELEMENT_FIELDS, PATTERNS, ROLES, ElementState } from './elements.js';
import type { HelperReadResult } from './helperRpc.js';
import { TRUNCATIONS } from './limits.js';

/**
 * A hand-written check of the helper's window_read answer, the largest answer the supervisor
 * gets: zod's parse of the recursive Element tree (and of one ElementRef per element) costs more
 * than the JSON parse of the answer itself. It accepts only what HelperReadResult accepts and
 * would answer unchanged: the exact fields, types, enums and lengths, and no field it does not
 * know (zod would strip one, so such an answer is left to zod). Anything it refuses goes through
 * the zod schema, which accepts it or says what is wrong: the check never decides an answer is bad.
 * protocol/test/readResultCheck.test.ts holds both to that on real and broken answers.
 */
export function isHelperReadResult(value: unknown): value is HelperReadResult {
  return readResult(value);
}

type Check = (v: unknown) => boolean;

const str: Check = (v) => typeof v === 'string';
const strLen =
  (min: number, max: number): Check =>
  (v) =>
    typeof v === 'string' && v.length >= min && v.length <= max;
const num: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const int: Check = (v) => Number.isSafeInteger(v);
const nonNegativeInt: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 0;
const bool: Check = (v) => typeof v === 'boolean';
const boolOrMixed: Check = (v) => typeof v === 'boolean' || v === 'mixed';
const oneOf = (values: readonly string[]): Check => {
  const set = new Set(values);
  return (v) => typeof v === 'string' && set.has(v);
};
const arrayOf =
  (item: Check, max = Infinity): Check =>
  (v) => {
    if (!Array.isArray(v) || v.length > max) return false;
    for (const x of v) if (!item(x)) return false;
    return true;
  };
const recordOf =
  (item: Check): Check =>
  (v) => {
    if (!isPlainObject(v)) return false;
    for (const key in v) if (!item(v[key])) return false;
    return true;
  };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** An object with these required and optional fields and no other. */
function objectOf(required: Record<string, Check>, optional: Record<string, Check> = {}): Check {
  const requiredKeys = Object.keys(required);
  return (v) => {
    if (!isPlainObject(v)) return false;
    let seen = 0;
    for (const key in v) {
      const check = Object.hasOwn(required, key) ? required[key] : Object.hasOwn(optional, key) ? optional[key] : undefined;
      if (check === undefined || !check(v[key])) return false;
      if (Object.hasOwn(required, key)) seen++;
    }
    return seen === requiredKeys.length;
  };
}

const rect = objectOf({ x: int, y: int, w: int, h: int, cx: int, cy: int });
const role = oneOf(ROLES);
// ElementState's keys, all optional booleans except `checked`.
const stateFields = Object.fromEntries(Object.keys(ElementState.shape).map((k) => [k, k === 'checked' ? boolOrMixed : bool]));
const state = objectOf({}, stateFields);

const element: Check = objectOf(
  { key: str, role, state, patterns: arrayOf(oneOf(PATTERNS)) },
  {
    native_role: str,
    name: str,
    value: str,
    automation_id: str,
    class: str,
    rect,
    actions: arrayOf(str),
    unread: arrayOf(oneOf(ELEMENT_FIELDS)),
    redacted: (v) => v === true,
    cut: arrayOf(oneOf(['name', 'value'])),
    digest: str,
    target: str,
    depth: int,
    parent: str,
    children: (v) => arrayOf(element)(v),
  },
);

const windowInfo = objectOf({ window: str, title: str, app: str, pid: nonNegativeInt, process_start: str, foreground: bool }, { class: str, rect, role });

const shownState = objectOf({ value_hash: strLen(0, 100) }, { checked: boolOrMixed, selected: bool, expanded: bool, enabled: bool });

const elementRef = objectOf(
  {
    key: strLen(1, 500),
    window: strLen(1, 200),
    process: objectOf({ pid: nonNegativeInt, process_start: str }),
    digest: strLen(1, 100),
  },
  {
    role: strLen(0, 100),
    name: strLen(0, 5000),
    automation_id: strLen(0, 1000),
    class: strLen(0, 500),
    ancestors: arrayOf(strLen(0, 5000), 300),
    window_title: strLen(0, 5000),
    window_rect: rect,
    shown: shownState,
  },
);

const readResult = objectOf(
  {
    window: windowInfo,
    format: oneOf(['tree', 'flat']),
    elements: arrayOf(element),
    node_count: int,
    limits: recordOf(objectOf({ value: num, ceiling: num }, { requested: num })),
    truncated_by: arrayOf(oneOf(TRUNCATIONS)),
    notes: arrayOf(str),
    read_ms: num,
  },
  { refs: recordOf(elementRef) },
);
