// Which connection issued which id (docs/connections.md#ids-are-bound-to-their-connection): every
// observation and screenshot an agent receives belongs to the connection it came from (targets
// through their observation). These ids are the supervisor's own, unique per session. Window ids are
// the helpers', equal across desktops: they carry their connection instead (connections/qualifiedIds.ts).
import { fail } from '../../../protocol/index.js';

/** The kinds of id bound to a connection (targets are bound through their observation). */
export type BoundKind = 'observation' | 'screenshot';

/** What a retired connection's ids are marked with (a name never starts with it). */
const RETIRED = '!retired:';

/** Ids remembered per kind; the oldest are forgotten first (an evicted observation or screenshot is refused by its store anyway). */
const MAX_BOUND = 20_000;

export class ConnectionBindings {
  private readonly issued: Record<BoundKind, Map<string, string>> = { observation: new Map(), screenshot: new Map() };

  /** Records that `connection` issued `id` to this agent. */
  note(kind: BoundKind, id: string, connection: string): void {
    const map = this.issued[kind];
    map.set(id, connection);
    if (map.size > MAX_BOUND) map.delete(map.keys().next().value as string);
  }

  /** The connection that issued an id (undefined: never issued here, or long forgotten). */
  issuer(kind: BoundKind, id: string): string | undefined {
    return this.issued[kind].get(id);
  }

  /**
   * The connection was removed, or now goes somewhere else: every id it issued here is refused from
   * now on, even once a connection of the same name is added again.
   */
  retire(connection: string): void {
    for (const map of Object.values(this.issued)) for (const [id, from] of map) if (from === connection) map.set(id, `${RETIRED}${connection}`);
  }

  /** Throws wrong_connection when the id came from another connection than `active` (connection_unavailable when that connection was retired). */
  check(kind: BoundKind, id: string, active: string): void {
    const from = this.issued[kind].get(id);
    if (from === undefined || from === active) return;
    if (from.startsWith(RETIRED)) {
      const name = from.slice(RETIRED.length);
      throw fail(
        'connection_unavailable',
        `this ${kind === 'observation' ? 'observation or target' : kind} came from a connection "${name}" that was removed or changed since: read again`,
        {
          connection: name,
          reason: 'changed',
          hint: 'take a new observation or screenshot where you act now',
        },
      );
    }
    throw fail(
      'wrong_connection',
      `this ${kind === 'observation' ? 'observation or target' : kind} came from the connection "${from}", and "${active}" is active: read again on "${active}", or activate "${from}"`,
      { connection: from, active },
    );
  }
}
