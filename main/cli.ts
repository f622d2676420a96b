import { connectionCommand } from './commands/connectionCmd.js';
import { doctor } from './commands/doctor.js';
import { installDeps } from './commands/installDeps.js';
import { journalCommand } from './commands/journalCmd.js';
import { mcpBridge } from './commands/mcpBridge.js';
import { serve } from './commands/serve.js';

const USAGE = `usage: overseer <command>
  serve [--host 127.0.0.1] [--port N] [--token T] [--data-dir DIR] [--demo]   the supervisor with the browser UI
  mcp [--data-dir DIR]                                                       the stdio MCP server an agent launches
  journal verify|export [--data-dir DIR]                                     check or print the receipts journal
  connection list|add|test|remove [--data-dir DIR]                           the desktops this supervisor reaches (ssh, OSWorld)
  doctor                                                                     why a tree is empty
  install-deps [--test] [--dry-run]                                          install the demo's (--test: the tests') Debian/Ubuntu packages
`;

/** `overseer serve | mcp | journal | connection | doctor | install-deps`. */
async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'mcp':
      return mcpBridge(rest);
    case 'journal':
      process.exitCode = await journalCommand(rest);
      return;
    case 'connection':
      process.exitCode = await connectionCommand(rest);
      return;
    case 'doctor':
      process.exitCode = await doctor();
      return;
    case 'install-deps':
      process.exitCode = installDeps(rest);
      return;
    default:
      process.stderr.write(USAGE);
      process.exitCode = command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`overseer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
