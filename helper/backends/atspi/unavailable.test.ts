import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { spawnHelper } from '../../../main/core/helperLink/helperProcess.js';

const without = (...names: string[]): Record<string, string | undefined> => {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const n of names) delete env[n];
  return env;
};

describe('the helper without an accessibility bus', () => {
  it('answers hello, then every call with no_interactive_desktop when there is no session bus', async () => {
    const h = spawnHelper(without('DBUS_SESSION_BUS_ADDRESS', 'AT_SPI_BUS_ADDRESS', 'DISPLAY'));
    try {
      assert.equal((await h.call('hello', {})).backend, 'atspi');
      await assert.rejects(h.call('window_list', {}), (e: unknown) => e instanceof OverseerError && e.code === 'no_interactive_desktop');
    } finally {
      assert.equal(await h.close(), 0);
    }
  });

  it('answers accessibility_unavailable when the accessibility bus cannot be reached', async () => {
    const h = spawnHelper({ ...without('DBUS_SESSION_BUS_ADDRESS'), AT_SPI_BUS_ADDRESS: 'unix:path=/nonexistent/overseer-bus' });
    try {
      await assert.rejects(
        h.call('window_read', {}),
        (e: unknown) => e instanceof OverseerError && e.code === 'accessibility_unavailable' && e.info.data?.['reason'] === 'bus_down',
      );
    } finally {
      await h.close();
    }
  });
});
