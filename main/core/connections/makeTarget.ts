// From a registry entry to its transport. The ssh and OSWorld transports are wired in here; until
// they are, such a connection is refused as unsupported (typed, so nothing falls back to local).
import { fail, type ConnectionConfig } from '../../../protocol/index.js';
import type { ConnectionTarget } from './target.js';

/** What a transport may need from the supervisor. */
export interface TargetContext {
  dataDir: string;
  log: (line: string) => void;
}

/** Makes a connection's transport from its entry (tests inject their own through SupervisorOptions). */
export type TargetFactory = (config: ConnectionConfig, context: TargetContext) => ConnectionTarget;

/** The transports this build has. */
export const makeTarget: TargetFactory = (config) => {
  throw fail('connection_unavailable', `connections of kind ${config.kind} are not supported by this build yet`, {
    connection: config.name,
    reason: 'unsupported',
    hint: 'this build of Overseer cannot reach this kind of connection; update Overseer',
  });
};
