import type { Exclusions } from '../../protocol/index.js';
import { fold } from './text.js';

/**
 * True when an application must never be read or acted on: the helper itself, excluded pids, and
 * application names given exactly (case folded) or as `/regex/`.
 */
export function isExcluded(exclusions: Exclusions, pid: number, appName: string): boolean {
  if (pid === process.pid || (exclusions.pids ?? []).includes(pid)) return true;
  return (exclusions.apps ?? []).some((pattern) => {
    if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
      try {
        return new RegExp(pattern.slice(1, -1), 'iu').test(appName);
      } catch {
        return false;
      }
    }
    return fold(pattern) === fold(appName);
  });
}
