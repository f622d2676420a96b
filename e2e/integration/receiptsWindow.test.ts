import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MAX_RECEIPTS, UiSnapshot, type ReceiptEntry, type UiFrame } from '../../protocol/index.js';
import type { AnyUiEvent } from '../../renderer/api/api.js';
import { createAppStore } from '../../renderer/store/store.js';
import { fakeHelperProcess } from '../../main/testing/fakeHelperProcess.js';
import { Supervisor } from '../../main/core/supervisor.js';
import type { UiClient } from '../../main/core/ui/uiHub.js';

const entry = (seq: number): ReceiptEntry => ({
  seq,
  at: new Date(seq).toISOString(),
  session: 's1',
  agent: 'claude',
  tool: 'element_act',
  outcome: 'completed',
  duration_ms: 1,
  summary: `receipt ${seq}`,
});

/** A UI as the renderer builds it: every event frame applied to its own store. */
function storeClient(): { client: UiClient; seqs: () => number[] } {
  const store = createAppStore();
  const client: UiClient = { send: (f: UiFrame) => f.type === 'event' && store.getState().applyEvent({ event: f.event, data: f.data } as AnyUiEvent) };
  return { client, seqs: () => store.getState().receipts.map((r) => r.seq) };
}

/** A supervisor core over a fake helper, in a data folder of its own. */
async function supervisor(): Promise<{ s: Supervisor; dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'overseer-receipts-'));
  const s = await Supervisor.start({
    dataDir,
    helperEnv: {},
    log: () => {},
    connection: { mcp_url: 'http://127.0.0.1:1/mcp', stdio_command: [] },
    spawnHelper: () => fakeHelperProcess(),
  });
  return { s, dataDir };
}

describe('receipts the UI holds', () => {
  it('a UI open through many receipts shows the same latest receipts as a UI that connects now', async () => {
    const { s, dataDir } = await supervisor();
    try {
      const early = storeClient();
      await s.ui.attach(early.client, { shows: false });
      const total = MAX_RECEIPTS + 25;
      for (let seq = 1; seq <= total; seq++) s.addReceipt(entry(seq));
      const answer = await s.ui.invoke('snapshot', {});
      assert.ok(answer.ok);
      const snapshot = UiSnapshot.parse(answer.result).receipts;
      const late = storeClient();
      await s.ui.attach(late.client, { shows: false });
      const latest = Array.from({ length: MAX_RECEIPTS }, (_, i) => total - MAX_RECEIPTS + 1 + i);
      assert.deepEqual(
        snapshot.map((r) => r.seq),
        latest,
        'the snapshot carries the latest MAX_RECEIPTS',
      );
      assert.deepEqual(late.seqs(), latest);
      assert.deepEqual(early.seqs(), latest, 'the store keeps exactly what the snapshot would give');
    } finally {
      await s.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('sends a snapshot of large receipts in frames under 256 KiB, and the UI that connects holds them all, long strings cut', async () => {
    const { s, dataDir } = await supervisor();
    try {
      // What an agent's 16 KiB set_value texts make of the receipts.
      for (let seq = 1; seq <= MAX_RECEIPTS; seq++) s.addReceipt({ ...entry(seq), summary: `set_value "${'x'.repeat(16 * 1024)}" → refused` });
      const frames: number[] = [];
      const late = storeClient();
      const measured: UiClient = {
        send: (f) => {
          frames.push(JSON.stringify(f).length);
          late.client.send(f);
        },
      };
      await s.ui.attach(measured, { shows: false });
      assert.ok(frames.length > 1, `the snapshot came in ${frames.length} frames`);
      assert.ok(Math.max(...frames) < 256 * 1024, `every frame under 256 KiB (largest ${Math.max(...frames)} bytes)`);
      assert.deepEqual(
        late.seqs(),
        Array.from({ length: MAX_RECEIPTS }, (_, i) => i + 1),
        'all receipts arrived, in order',
      );
      assert.match(s.receipts[0]?.summary ?? '', /…\(\+14\d{3} characters\)/, 'a long string is cut and says so');
    } finally {
      await s.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
