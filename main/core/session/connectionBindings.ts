// Which connection issued which id (docs/connections.md#ids-are-bound-to-their-connection): every
// observation and screenshot an agent receives belongs to the connection it came from (targets
// through their observation). These ids are the supervisor's own, unique per session. Window ids are
// the helpers', equal across desktops: they carry their connection instead (connections/qualifiedIds.ts).
import { fail } from '../../../protocol/index.js';

/** The kinds of id bound to a connection (targets are bound through their observation). */
export type BoundKind = 'observation' | 'screenshot';

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

  /** Throws wrong_connection when the id came from another connection than `active`. */
  check(kind: BoundKind, id: string, active: string): void {
    const from = this.issued[kind].get(id);
    if (from === undefined || from === active) return;
    throw fail(
      'wrong_connection',
      `this ${kind === 'observation' ? 'observation or target' : kind} came from the connection "${from}", and "${active}" is active: read again on "${active}", or activate "${from}"`,
      { connection: from, active },
    );
  }
}
