/**
 * What the tool schemas cost: tools/list sends every schema on every listing. Prints the bytes of
 * the tools/list result (and approx tokens = bytes/4), split into descriptions and input/output
 * schemas, for the five tools, with the screen tier (15 tools more), and for the progressive listing.
 * Run: npx tsx bench/toolsList.ts
 */
import { activateTool, listedTools, screenToolList, toolList } from '../main/core/mcp/mcpSession.js';

const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v), 'utf8');
const row = (label: string, n: number): string => `${label.padEnd(34)} ${String(n).padStart(7)} bytes  ~${Math.round(n / 4)} tokens`;

const tools = toolList();
console.log(row('tools/list (five tools)', bytes({ tools })));
console.log(row('  without outputSchema', bytes({ tools: tools.map(({ outputSchema: _o, ...t }) => t) })));
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
console.log(
  row(
    '  descriptions',
    tools.reduce((n, t) => n + bytes(t.description ?? ''), 0),
  ),
);
for (const t of tools) console.log(row(`  ${t.name} outputSchema`, bytes(t.outputSchema ?? {})));
console.log(row('tools/list (progressive, idle)', bytes({ tools: [activateTool()] })));

const screen = screenToolList();
const withScreen = bytes({ tools: listedTools(true) });
console.log(row('tools/list (with the screen tier)', withScreen));
console.log(row('  the screen tier adds', withScreen - bytes({ tools })));
console.log(
  row(
    '  its inputSchemas',
    screen.reduce((n, t) => n + bytes(t.inputSchema), 0),
  ),
);
console.log(
  row(
    '  its outputSchemas',
    screen.reduce((n, t) => n + bytes(t.outputSchema ?? {}), 0),
  ),
);
console.log(
  row(
    '  its descriptions',
    screen.reduce((n, t) => n + bytes(t.description ?? ''), 0),
  ),
);
