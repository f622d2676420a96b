// Before any helper call of the accessibility and screen tiers: every id in the arguments must have
// come from the agent's active connection (wrong_connection otherwise), and that connection must be
// usable (connection_unavailable otherwise). Nothing is ever re-aimed at another connection.
import { OverseerError, fail } from '../../../protocol/index.js';
import { ownerOf } from '../connections/qualifiedIds.js';
import type { ConnectionManager } from '../connections/manager.js';
import type { AgentSession } from '../session/agentSession.js';

/** Arguments that name a point of a screenshot (its image pixels unless `raw`). */
const POINT_ARGS = ['x', 'y', 'coordinate', 'to_x', 'to_y'];

/** Throws wrong_connection or connection_unavailable; returns when the call may go to the active connection. */
export function checkBindings(session: AgentSession, args: Record<string, unknown>, connections: ConnectionManager | undefined): void {
  const active = session.connection;
  const b = session.bindings;
  if (typeof args['window'] === 'string') {
    // A remote window id is qualified with its connection's name (qualifiedIds.ts): it names its desktop.
    const owner = ownerOf(args['window'], (name) => connections?.known(name) === true);
    if (owner.name !== active)
      throw fail(
        'wrong_connection',
        `this window came from the connection "${owner.name}", and "${active}" is active: list windows on "${active}", or activate "${owner.name}"`,
        {
          connection: owner.name,
          active,
        },
      );
    // The same name, but an earlier connection of it (removed and added again, or changed where it goes): never the new one's window.
    const now = connections?.tagOf(active) ?? active;
    if (owner.tag !== now)
      throw fail('connection_unavailable', `this window came from an earlier connection named "${active}", removed or changed since: list windows again`, {
        connection: active,
        reason: 'changed',
        hint: `call window_list on "${active}" for its windows now`,
      });
  }
  for (const key of ['snapshot', 'since'] as const) if (typeof args[key] === 'string') b.check('observation', args[key], active);
  if (typeof args['target'] === 'string') {
    const observation = session.targets.observationOf(args['target']);
    if (observation !== undefined) b.check('observation', observation, active);
  }
  if (typeof args['screenshot'] === 'string') b.check('screenshot', args['screenshot'], active);
  // Input planned on "your latest screenshot" is planned on one taken where the agent acts now, or refused.
  else if (args['raw'] !== true && POINT_ARGS.some((k) => args[k] !== undefined)) {
    const latest = session.screenshots.latest;
    if (latest !== undefined) b.check('screenshot', latest.id, active);
  }
  const refusal = connections?.refusal(active);
  if (refusal !== undefined) throw new OverseerError(refusal);
}
