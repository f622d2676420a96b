import { join } from 'node:path';
import { exportJournal, verifyJournal } from '../core/journal/index.js';
import { defaultDataDir, parseFlags } from '../cliArgs.js';

/** `overseer journal verify|export [--data-dir DIR]`. */
export async function journalCommand(argv: readonly string[]): Promise<number> {
  const { flags, rest } = parseFlags(argv, []);
  const dir = join(String(flags.get('data-dir') ?? defaultDataDir()), 'journal');
  if (rest[0] === 'verify') {
    const v = await verifyJournal(dir);
    for (const p of v.problems) process.stdout.write(`${p.kind}: ${p.segment}:${p.line}: ${p.detail}\n`);
    process.stdout.write(`${v.ok ? 'journal ok' : 'journal damaged'}: ${v.records} records in ${v.segments} segments (${dir})\n`);
    return v.ok ? 0 : 1;
  }
  if (rest[0] === 'export') {
    await exportJournal(dir, (line) => process.stdout.write(`${line}\n`));
    return 0;
  }
  process.stderr.write('usage: overseer journal verify|export [--data-dir DIR]\n');
  return 2;
}
