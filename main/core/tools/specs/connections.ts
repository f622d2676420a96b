// The connections tier (docs/tools.md#connections-tier): other desktops, listed, tested, activated,
// added with the person's approval, and commands run on them.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { CONNECTION_TOOL_ANSWERS, CONNECTION_TOOL_ARGS, type ConnectionToolName, type RemoteExecResult } from '../../../../protocol/index.js';
import { activateConnection, addConnection, listConnections, refuseAgentEntry, remoteExec, testConnection } from '../connectionTools.js';
import { renderActivated, renderAdded, renderConnectionList, renderConnectionTest, renderRemoteExec } from '../renderConnections.js';
import { readOnly, toolSpec, type ToolSpec } from './toolSpec.js';

/**
 * MCP lists an input schema as one object: add_connection's kinds (a union) are listed as one object
 * with every kind's fields and `name`, `kind` required; the runner still validates the exact union.
 */
function oneObject(schema: Tool['inputSchema']): Tool['inputSchema'] {
  const variants = ((schema as { anyOf?: { properties?: Record<string, object> }[] }).anyOf ?? []).map((v) => v.properties ?? {});
  const properties: Record<string, object> = {};
  for (const v of variants)
    for (const [k, p] of Object.entries(v))
      properties[k] =
        k === 'kind'
          ? { type: 'string', enum: ['ssh', 'osworld_http'], description: 'ssh or osworld_http' }
          : { ...p, description: ADD_FIELDS[k] ?? (p as { description?: string }).description ?? k };
  return { type: 'object', properties, required: ['name', 'kind'], additionalProperties: false };
}

/** What each field of add_connection is, as the agent reads it. */
const ADD_FIELDS: Record<string, string> = {
  name: 'Its name (a-z, 0-9, _ and -; not "local")',
  host: 'ssh: an ssh_config alias or host name',
  user: 'ssh: the remote user',
  port: 'ssh: the port',
  display: 'ssh: the remote X display, e.g. ":0" (found in the remote session when absent)',
  bus: 'ssh: the remote session bus address (found in the remote session when absent)',
  node: 'ssh: the remote node executable (absolute path; default node on the PATH)',
  url: 'osworld_http: the in-VM server URL, e.g. http://192.168.122.10:5000',
  timeout_ms: 'osworld_http: per-request timeout in ms (1000–300000)',
};

/** What the journal keeps of a remote_exec's end: exit, sizes and flags (the output itself is the agent's). */
function execSummary(r: RemoteExecResult): Record<string, unknown> {
  return {
    exit_code: r.exit_code,
    stdout_bytes: Buffer.byteLength(r.stdout),
    stderr_bytes: Buffer.byteLength(r.stderr),
    stdout_truncated: r.stdout_truncated,
    stderr_truncated: r.stderr_truncated,
    duration_ms: r.duration_ms,
    ...(r.timed_out === true ? { timed_out: true } : {}),
  };
}

/** The connections tier's tools, in listing order. */
export const CONNECTION_SPECS = {
  list_connections: toolSpec({
    name: 'list_connections',
    tier: 'connections',
    args: CONNECTION_TOOL_ARGS.list_connections,
    answer: CONNECTION_TOOL_ANSWERS.list_connections,
    description:
      'The desktops this supervisor reaches (local, ssh, OSWorld VMs): name, kind, host or URL, enabled, status with the last error, and which one is active for you.',
    annotations: readOnly('List connections'),
    run: (ctx) => listConnections(ctx.connections(), ctx.session),
    render: renderConnectionList,
  }),
  test_connection: toolSpec({
    name: 'test_connection',
    tier: 'connections',
    args: CONNECTION_TOOL_ARGS.test_connection,
    answer: CONNECTION_TOOL_ANSWERS.test_connection,
    description:
      'Reach a connection and ask its helper who it is (platform, session type, capabilities); on failure a typed error says what to fix. Read-only.',
    annotations: readOnly('Test a connection'),
    run: (ctx, args) => ctx.untilBraked(testConnection(ctx.connections(), ctx.session, args.name, ctx.signal)),
    render: renderConnectionTest,
  }),
  activate_connection: toolSpec({
    name: 'activate_connection',
    tier: 'connections',
    args: CONNECTION_TOOL_ARGS.activate_connection,
    answer: CONNECTION_TOOL_ANSWERS.activate_connection,
    description:
      'Make your desktop tools act on this connection from now on. Ids (windows, targets, observations, screenshots) from another connection answer wrong_connection there: read again after switching.',
    annotations: { title: 'Activate a connection', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (ctx, args) => activateConnection(ctx.connections(), ctx.session, args.name),
    render: renderActivated,
    switchesConnection: true,
  }),
  use_local: toolSpec({
    name: 'use_local',
    tier: 'connections',
    args: CONNECTION_TOOL_ARGS.use_local,
    answer: CONNECTION_TOOL_ANSWERS.use_local,
    description: 'Make your desktop tools act on the local desktop again (the one the supervisor runs on).',
    annotations: { title: 'Use the local desktop', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: (ctx) => activateConnection(ctx.connections(), ctx.session, 'local'),
    render: renderActivated,
    switchesConnection: true,
  }),
  add_connection: toolSpec({
    name: 'add_connection',
    tier: 'connections',
    args: CONNECTION_TOOL_ARGS.add_connection,
    answer: CONNECTION_TOOL_ANSWERS.add_connection,
    description:
      'Ask the person to add a connection (kind "ssh" with host, user?, port?… or "osworld_http" with url): a card shows exactly the entry; never passwords, keys or an ssh_config file (only the person names one).',
    annotations: { title: 'Add a connection (approval)', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: (ctx, args) => addConnection(ctx.connections(), ctx.session, args, ctx.signal, ctx.progress, ctx.braked),
    render: renderAdded,
    // An entry an agent may not add is refused saying why, before the schema calls its field unknown.
    refuseBeforeParse: refuseAgentEntry,
    listedInput: oneObject,
  }),
  remote_exec: toolSpec({
    name: 'remote_exec',
    tier: 'connections',
    args: CONNECTION_TOOL_ARGS.remote_exec,
    answer: CONNECTION_TOOL_ANSWERS.remote_exec,
    description:
      'Run a shell command on your active connection (never local), after the person approves the exact command. Answers exit_code, bounded stdout/stderr with truncated flags, duration_ms; ok only on exit 0.',
    annotations: { title: 'Run a command remotely (approval)', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    run: (ctx, args) => remoteExec(ctx.connections(), ctx.session, args, ctx.signal, ctx.progress, ctx.braked),
    render: renderRemoteExec,
    // A command's end is journaled whole but its output by size (it is the agent's to read, bounded).
    journal: (r) => ({ remote_exec: execSummary(r) }),
    exec: (r) => ({ exit_code: r.exit_code, duration_ms: r.duration_ms, ...(r.timed_out === true ? { timed_out: true } : {}) }),
  }),
} as const satisfies { [N in ConnectionToolName]: ToolSpec<N> };
