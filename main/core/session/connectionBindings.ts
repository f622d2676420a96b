// Which connection issued which id (docs/connections.md#ids-are-bound-to-their-connection): every
// window id, observation and screenshot an agent receives belongs to the connection it came from.
// Ids the supervisor makes (observations, screenshots, targets through their observation) are unique
// per session; window ids are the helpers' and two desktops can issue the same string, so a window
// id remembers every connection that issued it and is accepted on any of those, refused on others.
import { fail } from '../../../protocol/index.js';

/** The kinds of id bound to a connection (targets are bound through their observation). */
export type BoundKind = 'window' | 'observation' | 'screenshot';

/** Ids remembered per kind; the oldest are forgotten first (an evicted observation or screenshot is refused by its store anyway). */
const MAX_BOUND = 20_000;

export class ConnectionBindings {
  private readonly issued: Record<BoundKind, Map<string, Set<string>>> = { window: new Map(), observation: new Map(), screenshot: new Map() };

  /** Records that `connection` issued `id` to this agent. */
  note(kind: BoundKind, id: string, connection: string): void {
    const map = this.issued[kind];
    const set = map.get(id);
    if (set !== undefined) {
      set.add(connection);
      return;
    }
    map.set(id, new Set([connection]));
    if (map.size > MAX_BOUND) map.delete(map.keys().next().value as string);
  }

  /** The connections that issued an id (empty: never issued here, or long forgotten). */
  issuers(kind: BoundKind, id: string): readonly string[] {
    return [...(this.issued[kind].get(id) ?? [])];
  }

  /** Throws wrong_connection when the id came from connections other than `active` only. */
  check(kind: BoundKind, id: string, active: string): void {
    const set = this.issued[kind].get(id);
    if (set === undefined || set.has(active)) return;
    const from = [...set][0] ?? '';
    throw fail(
      'wrong_connection',
      `this ${kind === 'observation' ? 'observation or target' : kind} came from the connection "${from}", and "${active}" is active: read again on "${active}", or activate "${from}"`,
      { connection: from, active },
    );
  }
}
