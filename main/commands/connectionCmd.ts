// `overseer connection list|add|test|remove` (docs/connections.md#registry-and-tools): the person's
// own changes to connections.json. The file is the registry: a running supervisor notices a change
// within a few seconds (it stops the helper of a removed or disabled connection), so nothing here
// needs it to be running or stopped.
import { resolve } from 'node:path';
import { OverseerError, connectionWhere, logSafe, type ConnectionConfig } from '../../protocol/index.js';
import { localTarget } from '../core/connections/localTarget.js';
import { makeTarget } from '../core/connections/makeTarget.js';
import { ConnectionRegistry } from '../core/connections/registry.js';
import { defaultDataDir, parseFlags } from '../cliArgs.js';

export const CONNECTION_USAGE = `usage: overseer connection <command> [--data-dir DIR]
  list                                   the connections in the registry
  add NAME --ssh HOST [--user U] [--port P] [--ssh-config FILE] [--display D] [--bus ADDR] [--node PATH]
  add NAME --osworld URL [--timeout-ms N]
  test NAME                              reach it and ask its helper who it is
  remove NAME
`;

const FLAGS = ['data-dir', 'ssh', 'user', 'port', 'ssh-config', 'display', 'bus', 'node', 'osworld', 'timeout-ms'];

/** A number flag, or the text itself (the registry's schema then says what is wrong with it). */
const numberOf = (v: string): number | string => (/^\d+$/.test(v) ? Number(v) : v);

/** The entry `add` describes, before the registry validates it. */
function entryOf(name: string, flags: Map<string, string | true>): Record<string, unknown> {
  const get = (f: string): string | undefined => {
    const v = flags.get(f);
    return typeof v === 'string' ? v : undefined;
  };
  const ssh = get('ssh');
  const osworld = get('osworld');
  if ((ssh === undefined) === (osworld === undefined)) throw new Error('add needs exactly one of --ssh HOST or --osworld URL');
  if (osworld !== undefined) {
    const t = get('timeout-ms');
    return { name, kind: 'osworld_http', enabled: true, url: osworld, ...(t !== undefined ? { timeout_ms: numberOf(t) } : {}) };
  }
  const entry: Record<string, unknown> = { name, kind: 'ssh', enabled: true, host: ssh };
  const port = get('port');
  if (port !== undefined) entry['port'] = numberOf(port);
  for (const [flag, field] of [
    ['user', 'user'],
    ['ssh-config', 'ssh_config'],
    ['display', 'display'],
    ['bus', 'bus'],
    ['node', 'node'],
  ] as const) {
    const v = get(flag);
    if (v !== undefined) entry[field] = flag === 'ssh-config' || flag === 'node' ? resolve(v) : v;
  }
  return entry;
}

function line(c: ConnectionConfig): string {
  return `${c.name.padEnd(20)} ${c.kind.padEnd(13)} ${c.enabled ? 'enabled ' : 'disabled'} ${connectionWhere(c)}`;
}

/** Runs one `overseer connection …` command; answers the exit code. */
export async function connectionCommand(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv, []);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${CONNECTION_USAGE}`);
    return 2;
  }
  const { flags, rest } = parsed;
  const unknown = [...flags.keys()].find((f) => !FLAGS.includes(f));
  if (unknown !== undefined) {
    process.stderr.write(`unknown flag --${unknown}\n${CONNECTION_USAGE}`);
    return 2;
  }
  const dataDir = resolve(String(flags.get('data-dir') ?? defaultDataDir()));
  const registry = new ConnectionRegistry(dataDir, (l) => process.stderr.write(`${l}\n`));
  const [command, name] = rest;
  try {
    await registry.load();
    switch (command) {
      case 'list':
        process.stdout.write(`${'local'.padEnd(20)} ${'local'.padEnd(13)} enabled  this desktop\n`);
        for (const c of registry.list()) process.stdout.write(`${line(c)}\n`);
        return 0;
      case 'add': {
        if (name === undefined) break;
        const entry = await registry.add(entryOf(name, flags));
        process.stdout.write(`added: ${line(entry)}\n`);
        return 0;
      }
      case 'remove':
        if (name === undefined) break;
        await registry.remove(name);
        process.stdout.write(`removed ${name}\n`);
        return 0;
      case 'test': {
        if (name === undefined) break;
        const entry = registry.get(name);
        if (name !== 'local' && entry === undefined) throw new Error(`no connection named "${name}"`);
        const target = entry === undefined ? localTarget() : makeTarget(entry, { dataDir, log: (l) => process.stderr.write(`${l}\n`) });
        try {
          process.stdout.write(`${JSON.stringify(await target.test(), null, 2)}\n`);
        } finally {
          await target.close();
        }
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof OverseerError) {
      // A test's failure quotes the remote (ssh's words, a VM's message): escaped before it reaches the terminal.
      const hint = typeof error.info.data?.['hint'] === 'string' ? `\n  ${logSafe(error.info.data['hint'])}` : '';
      process.stderr.write(`${error.code}: ${logSafe(error.info.detail)}${hint}\n`);
      return error.code === 'invalid_argument' ? 2 : 1;
    }
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  process.stderr.write(CONNECTION_USAGE);
  return 2;
}
