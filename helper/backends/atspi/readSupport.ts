import type { Truncation } from '../../../protocol/index.js';
import type { Deadline } from '../../core/deadline.js';
import { AppUnresponsiveError } from './breaker.js';
import { DBusReplyError, DBusTimeoutError } from './dbus.js';

/** Runs `fn` over items with at most `limit` in flight; stops starting new work when the deadline passes. */
export async function pool<T>(items: readonly T[], limit: number, deadline: Deadline, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !deadline.expired()) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** A D-Bus string, or '' for anything else. */
export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Formats a Value interface number without float noise. */
export function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(12)));
}

/** Collects provider failures of one read into truncations and a few notes. */
export class Problems {
  readonly truncated = new Set<Truncation>();
  readonly notes: string[] = [];
  private count = 0;

  note(error: unknown, what: string): void {
    this.count++;
    const cut: Truncation = error instanceof DBusTimeoutError || error instanceof AppUnresponsiveError ? 'timeout' : 'provider_error';
    this.truncated.add(cut);
    if (this.notes.length < 5) this.notes.push(`${cut}: ${what}: ${error instanceof DBusReplyError ? error.errorName : describe(error)}`);
    else if (this.notes.length === 5) this.notes.push('more provider failures were not listed');
  }

  get failures(): number {
    return this.count;
  }
}
