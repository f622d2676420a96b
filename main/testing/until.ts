// Waiting in tests for what another process makes true: a line on a child's stderr, an event, a file.
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `get` every 20 ms until it answers something other than undefined; throws naming `what` after `ms`. */
export async function until<T>(get: () => T | undefined | Promise<T | undefined>, what: string, ms = 5000): Promise<T> {
  for (const end = Date.now() + ms; ; await sleep(20)) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
  }
}
