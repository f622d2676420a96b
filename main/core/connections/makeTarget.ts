// From a registry entry to its transport (docs/connections.md): ssh runs the helper on the remote
// over the system's OpenSSH; osworld_http runs a local helper whose backends talk HTTP to the VM.
import type { ConnectionConfig } from '../../../protocol/index.js';
import type { HelperProcess } from '../helperLink/helperProcess.js';
import { osworldTarget } from './osworldTarget.js';
import { sshTarget } from './sshTarget.js';
import type { ConnectionTarget } from './target.js';

/** What a transport may need from the supervisor. */
export interface TargetContext {
  dataDir: string;
  log: (line: string) => void;
  /** Starts this build's local helper (the desktop app's bundled one); an osworld connection runs it with the VM's backends. */
  spawnHelper?: (env: Record<string, string | undefined>) => HelperProcess;
}

/** Makes a connection's transport from its entry (tests inject their own through SupervisorOptions). */
export type TargetFactory = (config: ConnectionConfig, context: TargetContext) => ConnectionTarget;

/** The transports this build has. */
export const makeTarget: TargetFactory = (config, context) =>
  config.kind === 'ssh'
    ? sshTarget(config, { dataDir: context.dataDir, log: context.log })
    : osworldTarget(config, { log: context.log, ...(context.spawnHelper !== undefined ? { spawn: context.spawnHelper } : {}) });
