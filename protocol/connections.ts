// Connections (docs/connections.md): one supervisor, many desktops. A connection is a helper
// somewhere — the local child process, the same helper over the system's ssh, or a local helper
// whose backends talk HTTP to an OSWorld VM — with one JSON-RPC contract. These schemas are the
// registry's entries, what agents and the person see of a connection, and the agent tools' arguments.
import { z } from 'zod';

/** The connection every agent starts on: the desktop the supervisor runs on. Always present. */
export const LOCAL_CONNECTION_NAME = 'local';
/** At most this many connections in the registry (besides `local`). */
export const MAX_CONNECTIONS = 32;
/** A connection's name: what agents activate and cards show. */
export const ConnectionName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'a name is 1–32 of a-z, 0-9, "_" and "-", starting with a letter or digit');

export const CONNECTION_KINDS = ['local', 'ssh', 'osworld_http'] as const;
export const ConnectionKind = z.enum(CONNECTION_KINDS);
export type ConnectionKind = z.infer<typeof ConnectionKind>;

/**
 * Field names that would carry key material, passwords or tokens: a registry entry never holds
 * them, and one that names them is refused with invalid_argument (data.reason "secret_field").
 */
export const SECRET_FIELDS = ['password', 'passphrase', 'key', 'private_key', 'identity', 'identity_file', 'token', 'secret', 'api_key', 'auth'] as const;

/** A host as ssh takes it: an ssh_config alias or a host name; never an option (a leading "-"). */
const SshHost = z
  .string()
  .regex(/^[A-Za-z0-9_.:[\]%-]{1,253}$/, 'a host name or ssh_config alias (letters, digits, . _ - : [ ] %)')
  .refine((h) => !h.startsWith('-'), 'a host never starts with "-"');
const SshUser = z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/, 'a user name (letters, digits, _ . -)');
/** An absolute path without control characters. */
const AbsolutePath = z
  .string()
  .min(2)
  .max(1024)
  .regex(/^\/[^\0\n\r]*$/, 'an absolute path');

/** An ssh connection: the same helper on the remote machine, its stdio carried by OpenSSH. */
export const SshConnectionConfig = z.strictObject({
  name: ConnectionName,
  kind: z.literal('ssh'),
  enabled: z.boolean(),
  host: SshHost,
  user: SshUser.optional(),
  port: z.number().int().min(1).max(65535).optional(),
  /** An ssh_config file passed as `-F`. */
  ssh_config: AbsolutePath.optional(),
  /** The remote X display (":0"); found in the remote user's session when absent. */
  display: z
    .string()
    .regex(/^[A-Za-z0-9_.-]*:\d+(\.\d+)?$/, 'an X display such as :0')
    .optional(),
  /** The remote session bus address; found in the remote user's session when absent. */
  bus: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^[A-Za-z0-9_:=,./%-]+$/, 'a D-Bus address such as unix:path=/run/user/1000/bus')
    .optional(),
  /** The remote node executable (default: `node` on the remote PATH). */
  node: AbsolutePath.optional(),
});
export type SshConnectionConfig = z.infer<typeof SshConnectionConfig>;

/** An OSWorld-style in-VM server reached over HTTP. */
export const OsworldConnectionConfig = z.strictObject({
  name: ConnectionName,
  kind: z.literal('osworld_http'),
  enabled: z.boolean(),
  /** The server's base URL, http or https, without credentials. */
  url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), 'a URL without user or password'),
  timeout_ms: z.number().int().min(1000).max(300_000).optional(),
});
export type OsworldConnectionConfig = z.infer<typeof OsworldConnectionConfig>;

/** One entry of `connections.json` (local is implied and never stored). */
export const ConnectionConfig = z.discriminatedUnion('kind', [SshConnectionConfig, OsworldConnectionConfig]);
export type ConnectionConfig = z.infer<typeof ConnectionConfig>;

/** `connections.json`: a version and the entries, at most MAX_CONNECTIONS. */
export const ConnectionsFile = z.strictObject({
  version: z.literal(1),
  connections: z.array(ConnectionConfig).max(MAX_CONNECTIONS),
});
export type ConnectionsFile = z.infer<typeof ConnectionsFile>;

/** Whether a connection answered the last time it was used or tested. */
export const ConnectionStatus = z.enum(['up', 'down', 'unknown']);
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;

/** What agents and the person see of a connection. */
export const ConnectionInfo = z.object({
  name: z.string(),
  kind: ConnectionKind,
  /** Where it goes: `user@host:port` for ssh, the URL for osworld_http, "this desktop" for local. */
  where: z.string(),
  enabled: z.boolean(),
  status: ConnectionStatus,
  /** The last failure, as its error code and detail. */
  last_error: z.object({ code: z.string(), detail: z.string() }).optional(),
  /** When it was last up or tested. */
  checked_at: z.string().optional(),
  /** osworld_http: the URL is neither loopback nor a private address (the UI warns). */
  public_url: z.boolean().optional(),
  /** The agents whose tools act there now. */
  active_for: z.array(z.string()).optional(),
});
export type ConnectionInfo = z.infer<typeof ConnectionInfo>;

/** Where a card, receipt or journal record acts: the connection's name and host (or URL). */
export const ConnectionRef = z.object({ name: z.string().max(40), kind: ConnectionKind, where: z.string().max(2100) });
export type ConnectionRef = z.infer<typeof ConnectionRef>;

/** test_connection's answer (and `overseer connection test`'s). */
export const ConnectionTest = z.object({
  name: z.string(),
  reachable: z.boolean(),
  authenticated: z.boolean(),
  /** The remote platform (`linux`, `win32`…). */
  platform: z.string().optional(),
  /** x11, wayland, tty, or unknown. */
  session_type: z.string().optional(),
  helper_version: z.string().optional(),
  backend: z.string().optional(),
  capabilities: z.array(z.string()).optional(),
  round_trip_ms: z.number().optional(),
});
export type ConnectionTest = z.infer<typeof ConnectionTest>;

/** Longest command remote_exec runs. */
export const MAX_REMOTE_COMMAND = 8192;
/**
 * The risk hints a remote_exec command earns for what its shell would do (docs/supervision.md#risk-hints).
 * They are phrases, not words the command contains: the card shows them unquoted.
 */
export const SHELL_HINT = {
  /** `| sh`, `| bash`, `| sudo bash`: whatever comes down the pipe runs as a script. */
  pipeToShell: 'Pipes into a shell',
  /** `curl … |`, `wget … |`: a download goes straight into another program. */
  pipeDownload: 'Pipes a download',
  /** `bash <(curl …)`, `sh -c "$(wget …)"`: a download runs without being saved or read. */
  runDownload: 'Runs a download',
  /** `rm -r`, `rm -rf`, `rm --recursive`. */
  recursiveDelete: 'Recursive delete',
  /** `>`/`>>`, `tee`, `cp`, `mv` into /etc, /usr, /boot, a disk device, ~/.ssh, ~/.bashrc and other startup files. */
  systemWrite: 'Writes to a system or startup file',
  /** `sudo`, `doas`, `pkexec`, `su`. */
  asRoot: 'Runs as root',
  /** `mkfs`, `mke2fs`, `mkswap`, `wipefs`. */
  formatDisk: 'Formats a disk',
  /** `dd … of=`. */
  rawWrite: 'Raw write (dd of=)',
  /** `chmod 777`, `chmod -R a+w`. */
  worldWritable: 'Opens permissions to everyone',
  /** `:(){ :|:& };:` and its renamings. */
  forkBomb: 'Fork bomb',
  /** A long run of spaces or tabs, which can push the rest of a line out of sight. */
  spaceRun: 'Long run of spaces',
} as const;
/** Every shell hint, in the order a card lists them. */
export const SHELL_HINTS: readonly string[] = Object.values(SHELL_HINT);

/** Most bytes of stdout, and of stderr, remote_exec returns (the rest is cut and `truncated` says so). */
export const MAX_REMOTE_OUTPUT = 64 * 1024;
/** Longest remote_exec may run. */
export const MAX_REMOTE_EXEC_MS = 300_000;

const Output = z.enum(['text', 'json']).optional().describe('"json" for the structured answer as JSON text');

export const ListConnectionsArgs = z.strictObject({ output: Output });
const NameArg = ConnectionName.describe('A connection name from list_connections');
export const TestConnectionArgs = z.strictObject({ name: NameArg, output: Output });
export const ActivateConnectionArgs = z.strictObject({
  name: NameArg.describe('The connection your tools act on from now on ("local": this desktop)'),
  output: Output,
});
export const UseLocalArgs = z.strictObject({ output: Output });
/**
 * add_connection: an entry as the registry keeps it (enabled once the person approves), shown whole
 * on its card. Never an `ssh_config`: ssh runs what a config names (`Match exec`, `ProxyCommand`,
 * `KnownHostsCommand`…) on this machine, so only the person names one (CLI or Settings).
 */
export const AddConnectionArgs = z.union([
  SshConnectionConfig.omit({ enabled: true, ssh_config: true }).extend({ output: Output }),
  OsworldConnectionConfig.omit({ enabled: true }).extend({ output: Output }),
]);
export const RemoteExecArgs = z.strictObject({
  command: z.string().min(1).max(MAX_REMOTE_COMMAND).describe('A shell command run on the active connection (never on local)'),
  timeout_ms: z.number().int().min(100).max(MAX_REMOTE_EXEC_MS).optional().describe('Default 30000, at most 300000'),
  output: Output,
});
export type RemoteExecArgs = z.infer<typeof RemoteExecArgs>;

/** What remote_exec ran and how it ended. `ok` only when the exit code is 0. */
export const RemoteExecResult = z.object({
  ok: z.boolean(),
  /** The card's receipt id (the timeline's entry and the person's recent decisions use it). */
  receipt_id: z.string().optional(),
  connection: ConnectionRef,
  exit_code: z.number().int().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  stdout_truncated: z.boolean(),
  stderr_truncated: z.boolean(),
  duration_ms: z.number(),
  /** Set when the command ran past its timeout and was ended (exit_code null). */
  timed_out: z.boolean().optional(),
});
export type RemoteExecResult = z.infer<typeof RemoteExecResult>;

/** How a remote_exec ended, as its receipt and journal record keep it (the output itself is the agent's). */
export const ExecEnd = z.object({
  /** The command's exit code; negative: ended by that signal (as an OSWorld server reports it); null: no exit code (timed out, or ended here). */
  exit_code: z.number().int().nullable(),
  /** Set when the command ran past its timeout and was ended. */
  timed_out: z.boolean().optional(),
  duration_ms: z.number(),
});
export type ExecEnd = z.infer<typeof ExecEnd>;

/**
 * How a remote_exec ended, in words, and whether that is success: only exit 0 is. "exit 0",
 * "exit 3", "killed by signal 9", "timed out after 5012 ms", "ended without an exit code".
 */
export function execEndWords(end: ExecEnd): { ok: boolean; text: string } {
  if (end.timed_out === true) return { ok: false, text: `timed out after ${Math.round(end.duration_ms)} ms` };
  if (end.exit_code === null) return { ok: false, text: 'ended without an exit code' };
  if (end.exit_code < 0) return { ok: false, text: `killed by signal ${-end.exit_code}` };
  return { ok: end.exit_code === 0, text: `exit ${end.exit_code}` };
}

/** list_connections' answer: every connection (local first) and which one is active for this agent. */
export const ListConnectionsAnswer = z.object({ connections: z.array(ConnectionInfo), active: z.string() });
export type ListConnectionsAnswer = z.infer<typeof ListConnectionsAnswer>;
/** activate_connection's and use_local's answer: where this agent's tools act from now on. */
export const ActivateConnectionAnswer = z.object({ active: ConnectionRef, previous: z.string() });
export type ActivateConnectionAnswer = z.infer<typeof ActivateConnectionAnswer>;
/** add_connection's answer once the person approved: the connection as it is listed now. */
export const AddConnectionAnswer = z.object({
  added: ConnectionInfo,
  /** The card's receipt id (the timeline's entry and the person's recent decisions use it). */
  receipt_id: z.string().optional(),
});
export type AddConnectionAnswer = z.infer<typeof AddConnectionAnswer>;

/** The connections tier's answers (each tool's structuredContent). */
export const CONNECTION_TOOL_ANSWERS = {
  list_connections: ListConnectionsAnswer,
  test_connection: ConnectionTest,
  activate_connection: ActivateConnectionAnswer,
  use_local: ActivateConnectionAnswer,
  add_connection: AddConnectionAnswer,
  remote_exec: RemoteExecResult,
} as const;

/** The connections tier (docs/tools.md#progressive-tools). */
export const CONNECTION_TOOL_ARGS = {
  list_connections: ListConnectionsArgs,
  test_connection: TestConnectionArgs,
  activate_connection: ActivateConnectionArgs,
  use_local: UseLocalArgs,
  add_connection: AddConnectionArgs,
  remote_exec: RemoteExecArgs,
} as const;
export type ConnectionToolName = keyof typeof CONNECTION_TOOL_ARGS;
export const CONNECTION_TOOL_NAMES = Object.keys(CONNECTION_TOOL_ARGS) as ConnectionToolName[];

/** Whether an osworld URL's host is loopback or a private address (else the person is warned). */
export function isPrivateUrl(url: string): boolean {
  const m = /^[a-z]+:\/\/(\[[^\]]*\]|[^/:?#]*)/i.exec(url);
  if (m === null) return false;
  const host = (m[1] ?? '').replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1' || /^127\./.test(host)) return true;
  if (/^10\./.test(host) || /^192\.168\./.test(host) || /^172\.(1[6-9]|2\d|3[01])\./.test(host) || /^169\.254\./.test(host)) return true;
  if (/^f[cd][0-9a-f]{2}:/.test(host) || /^fe80:/.test(host)) return true;
  return false;
}

/** Where a connection goes, as people read it. */
export function connectionWhere(c: ConnectionConfig): string {
  if (c.kind === 'osworld_http') return c.url;
  return `${c.user !== undefined ? `${c.user}@` : ''}${c.host}${c.port !== undefined ? `:${c.port}` : ''}`;
}
