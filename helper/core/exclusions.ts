import type { Exclusions } from '../../protocol/index.js';
import { scopedPids } from './scope.js';
import { fold } from './text.js';

/**
 * True when an application must never be read or acted on: the helper itself, excluded pids, the
 * processes excluded for the agent this call serves (its own host), and application names given
 * exactly (case folded) or as `/regex/`.
 */
export function isExcluded(exclusions: Exclusions, pid: number, appName: string): boolean {
  if (pid === process.pid || (exclusions.pids ?? []).includes(pid) || scopedPids().includes(pid)) return true;
  return (exclusions.apps ?? []).some((pattern) => matches(pattern, appName));
}

/** True when a window's title says it shows the supervisor's own UI (or another excluded title). */
export function isExcludedTitle(exclusions: Exclusions, title: string): boolean {
  return (exclusions.titles ?? []).some((pattern) => matches(pattern, title));
}

/** An exact, case-folded match, or a `/regex/` (case-insensitive, Unicode). */
function matches(pattern: string, text: string): boolean {
  if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
    try {
      return new RegExp(pattern.slice(1, -1), 'iu').test(text);
    } catch {
      return false;
    }
  }
  return fold(pattern) === fold(text);
}
