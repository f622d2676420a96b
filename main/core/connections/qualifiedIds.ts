// Window ids are the helpers' own, and two desktops issue the same strings (AT-SPI's ":1.2~1" names
// a bus connection and an index, alike on every desktop). So a remote connection's window ids are
// qualified with its name on their way to anyone ("lab/:1.2~1") and unqualified on their way back:
// an id names its desktop, and one used while another connection is active is refused by name
// (docs/connections.md#ids-are-bound-to-their-connection). Local ids are left as the helper made them.
import { LOCAL_CONNECTION_NAME } from '../../../protocol/index.js';

/** The key whose string values are window ids (WindowInfo.window, ElementRef.window, `window` arguments). */
const WINDOW_KEY = 'window';
const QUALIFIED = /^([a-z0-9][a-z0-9_-]{0,31})(~\d{1,9})?\/(.*)$/s;

/** A remote window id as agents and the person see it. */
export function qualify(connection: string, id: string): string {
  return connection === LOCAL_CONNECTION_NAME ? id : `${connection}/${id}`;
}

/**
 * The connection a window id belongs to, and the tag it was qualified with (its name, or `name~N`
 * for a later incarnation of that name: connections/manager.ts): the name when it is or was a
 * connection's (`isConnection`); else local, whose ids are never qualified.
 */
export function ownerOf(id: string, isConnection: (name: string) => boolean): { name: string; tag: string } {
  const m = QUALIFIED.exec(id);
  const name = m?.[1] ?? '';
  if (m === null || name === LOCAL_CONNECTION_NAME || !isConnection(name)) return { name: LOCAL_CONNECTION_NAME, tag: LOCAL_CONNECTION_NAME };
  return { name, tag: `${name}${m[2] ?? ''}` };
}

/** Qualifies every window id in a helper's answer, in place (the answer is freshly parsed and the caller's alone). */
export function qualifyAnswer<T>(connection: string, answer: T): T {
  const stack: unknown[] = [answer];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push(x);
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const x = o[k];
      if (k === WINDOW_KEY && typeof x === 'string') o[k] = qualify(connection, x);
      else if (x !== null && typeof x === 'object') stack.push(x);
    }
  }
  return answer;
}

/** A copy of a call's parameters with this connection's window ids unqualified (the caller's objects are never changed). */
export function unqualifyParams<T>(connection: string, params: T): T {
  const prefix = `${connection}/`;
  const copy = (v: unknown, key: string | undefined): unknown => {
    if (key === WINDOW_KEY && typeof v === 'string') return v.startsWith(prefix) ? v.slice(prefix.length) : v;
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => copy(x, undefined));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = copy(x, k);
    return out;
  };
  return copy(params, undefined) as T;
}
