import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../core/runtime/paths.js';

/** A real MCP SDK client in its own process: it connects, activates the accessibility tier, lists tools, then sets the fixture's Name field and waits for the person. */
const SCRIPT = `
import { Client } from '${REPO_ROOT}node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js';
import { StreamableHTTPClientTransport } from '${REPO_ROOT}node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js';
const [url, token, win, name, text] = process.argv.slice(2);
const client = new Client({ name, version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer ' + token } } }));
await client.callTool({ name: 'computer_use_activate', arguments: { tiers: ['accessibility'] } });
await client.listTools();
await client.callTool({ name: 'element_act', arguments: { window: win, selector: { automation_id: 'name_entry' }, action: 'set_value', text } }, undefined, { timeout: 120000 });
`;

/** A running agent process to kill (SIGKILL: nothing of it says goodbye), and its stderr for failures. */
export interface DoomedAgent {
  child: ChildProcess;
  stderr(): string;
  /** Kills it if it still runs and removes its script. */
  dispose(): Promise<void>;
}

/** Starts an agent process whose set_value card waits in the queue until it is killed (docs/supervision.md#when-an-agent-has-gone). */
export async function startDoomedAgent(mcp: { mcpUrl: string; token: string }, win: string, name: string, text = 'from a killed agent'): Promise<DoomedAgent> {
  const dir = await mkdtemp(join(tmpdir(), 'overseer-doomed-'));
  const script = join(dir, 'agent.mjs');
  await writeFile(script, SCRIPT);
  const child = spawn(process.execPath, [script, mcp.mcpUrl, mcp.token, win, name, text], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString('utf8')));
  return {
    child,
    stderr: () => err,
    async dispose() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
