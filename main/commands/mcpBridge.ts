import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { AGENT_CREDENTIAL_ENV } from '../../protocol/index.js';
import { defaultDataDir, parseFlags, socketPath } from '../cliArgs.js';

/**
 * `overseer mcp`: the stdio MCP server an agent launches. It relays stdio to the running
 * supervisor's local socket after authenticating with the agent's own credential
 * (OVERSEER_AGENT_CREDENTIAL, given by the person in Settings → Agents) or, without one, the shared
 * token file, and says clearly on stderr when no supervisor is running or the credential is refused.
 */
export async function mcpBridge(argv: readonly string[]): Promise<void> {
  const { flags } = parseFlags(argv, []);
  const dataDir = String(flags.get('data-dir') ?? defaultDataDir());
  const path = socketPath(dataDir);
  const own = process.env[AGENT_CREDENTIAL_ENV]?.trim();
  let token: string;
  try {
    token = own !== undefined && own !== '' ? own : (await readFile(join(dataDir, 'token'), 'utf8')).trim();
  } catch {
    process.stderr.write(
      `overseer mcp: no Overseer supervisor has run with data folder ${dataDir} (no token file), and ${AGENT_CREDENTIAL_ENV} is not set. Start it with \`npx overseer serve\` or the desktop app.\n`,
    );
    process.exit(1);
  }
  const socket = connect(path);
  socket.once('error', (error: NodeJS.ErrnoException) => {
    const why = error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? 'no Overseer supervisor is running' : error.message;
    process.stderr.write(`overseer mcp: ${why} (socket ${path}). Start it with \`npx overseer serve\` or the desktop app.\n`);
    process.exit(1);
  });
  socket.once('connect', () => {
    socket.write(`${JSON.stringify({ token, host_pid: process.ppid, client: 'overseer mcp bridge' })}\n`);
  });
  let greeted = false;
  let buf = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    if (greeted) return;
    buf = Buffer.concat([buf, chunk]);
    const nl = buf.indexOf(0x0a);
    if (nl < 0) return;
    const answer = JSON.parse(buf.subarray(0, nl).toString('utf8')) as { ok: boolean; error?: string };
    if (!answer.ok) {
      process.stderr.write(`overseer mcp: the supervisor refused the connection: ${answer.error ?? 'unknown reason'}\n`);
      process.exit(1);
    }
    greeted = true;
    const rest = buf.subarray(nl + 1);
    if (rest.length > 0) process.stdout.write(rest);
    socket.pipe(process.stdout);
    process.stdin.pipe(socket);
  });
  socket.once('close', () => {
    if (greeted) process.stderr.write('overseer mcp: the supervisor closed the connection\n');
    process.exit(greeted ? 0 : 1);
  });
  process.stdin.once('end', () => socket.end());
}
