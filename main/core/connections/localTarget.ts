// The local connection (docs/connections.md): the helper as a child process of the supervisor, on
// the desktop it runs on. remote_exec is never run here: an agent that wants a local shell is asking
// for something Overseer does not supervise.
import { LOCAL_CONNECTION_NAME, fail, type ConnectionTest } from '../../../protocol/index.js';
import { spawnHelper, type HelperProcess } from '../helperLink/helperProcess.js';
import type { ConnectionTarget, ExecOutcome } from './target.js';

/** What "local" is shown as. */
export const LOCAL_WHERE = 'this desktop';

/** The local target: `spawn` is today's helper (the desktop app passes its bundled one). */
export function localTarget(spawn: (env: Record<string, string | undefined>) => HelperProcess = spawnHelper): ConnectionTarget {
  return {
    name: LOCAL_CONNECTION_NAME,
    kind: 'local',
    where: LOCAL_WHERE,
    spawnHelper: spawn,
    exec(): Promise<ExecOutcome> {
      return Promise.reject(
        fail('invalid_argument', 'remote_exec runs only on a remote connection, never on local: activate_connection one first', { reason: 'local' }),
      );
    },
    test(): Promise<ConnectionTest> {
      return Promise.resolve({ name: LOCAL_CONNECTION_NAME, reachable: true, authenticated: true, platform: process.platform });
    },
    close: () => Promise.resolve(),
  };
}
