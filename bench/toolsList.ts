/**
 * What the tool listing costs an agent: tools/list is sent whole on every listing. Prints the bytes
 * of the tools/list result (and approx tokens = bytes/4) as an idle agent gets it by default
 * (progressive exposure), after each tier is activated, and with progressive exposure turned off;
 * then each tier split into descriptions and input/output schemas. The default must stay ≤ 20 kB.
 * Run: npx tsx bench/toolsList.ts
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Tier } from '../protocol/index.js';
import { connectionToolList, screenToolList, toolList } from '../main/core/mcp/toolList.js';
import { listedTools } from '../main/core/mcp/toolTiers.js';
import { AgentSession } from '../main/core/session/agentSession.js';

/** The most the default tools/list may weigh, in bytes (docs/tools.md#progressive-tools). */
const DEFAULT_BOUND = 20_000;

const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v), 'utf8');
const row = (label: string, n: number): string => `${label.padEnd(40)} ${String(n).padStart(7)} bytes  ~${Math.round(n / 4)} tokens`;

/** tools/list of an agent with these tiers active (the person offers the screen tier, as by default). */
function listing(progressive: boolean, tiers: Tier[]): Tool[] {
  const session = new AgentSession({ transport: 'http', progressiveTools: progressive });
  for (const t of tiers) session.tiers.add(t);
  return listedTools(session, true);
}

const idle = listing(true, []);
const idleBytes = bytes({ tools: idle });
console.log(row(`tools/list by default (idle: ${idle.length} tool${idle.length === 1 ? '' : 's'})`, idleBytes));
console.log(`  ${idle.map((t) => t.name).join(', ')}`);
console.log(`  bound ${DEFAULT_BOUND} bytes: ${idleBytes <= DEFAULT_BOUND ? 'within' : 'EXCEEDED'}`);
console.log(row('  after activating "accessibility"', bytes({ tools: listing(true, ['accessibility']) })));
console.log(row('  after activating "screen" alone', bytes({ tools: listing(true, ['screen']) })));
console.log(row('  after activating both', bytes({ tools: listing(true, ['accessibility', 'screen']) })));
console.log(row('  after activating "connections" alone', bytes({ tools: listing(true, ['connections']) })));
console.log(row('  after activating all three', bytes({ tools: listing(true, ['accessibility', 'screen', 'connections']) })));
console.log(row('progressive exposure off (every tool)', bytes({ tools: listing(false, []) })));

/** One tier's tools, split by what they carry. */
function tier(label: string, tools: Tool[]): void {
  console.log(row(`tier "${label}" (${tools.length} tools)`, bytes(tools)));
  console.log(
    row(
      '  descriptions',
      tools.reduce((n, t) => n + bytes(t.description ?? ''), 0),
    ),
  );
  console.log(
    row(
      '  inputSchemas',
      tools.reduce((n, t) => n + bytes(t.inputSchema), 0),
    ),
  );
  console.log(
    row(
      '  outputSchemas',
      tools.reduce((n, t) => n + bytes(t.outputSchema ?? {}), 0),
    ),
  );
  for (const t of tools) console.log(row(`    ${t.name}`, bytes(t)));
}
tier('accessibility', toolList());
tier('screen', screenToolList());
tier('connections', connectionToolList());
