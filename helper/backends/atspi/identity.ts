import { readFileSync } from 'node:fs';

/** Process start time (field 22 of /proc/<pid>/stat, clock ticks since boot); undefined when the process is gone. */
export function procStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm (field 2) may contain spaces and parentheses: split after its closing parenthesis.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19];
  } catch {
    return undefined;
  }
}
