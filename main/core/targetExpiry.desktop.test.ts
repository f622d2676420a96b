import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Receipt, WindowReadAnswer } from '../../protocol/index.js';
import { startTestDesktop, type TestDesktop } from '../../e2e/desktop/testDesktop.js';
import { REPO_ROOT } from '../../helper/rpc/helperProcess.js';
import { httpClient, removeDataDir, serve, toolJson, type Served } from '../testing/serveHarness.js';

describe('overseer serve: target lifetime', () => {
  let desktop: TestDesktop;
  let s: Served;
  let agent: Client;
  before(async () => {
    desktop = await startTestDesktop();
    await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}e2e/fixtures/fixtureApp.py`, '--rows', '10'], { waitForWindow: 'Overseer Fixture' });
    s = await serve({ ...desktop.env, OVERSEER_TARGET_TTL_MS: '1500' });
    agent = await httpClient(s);
  });
  after(async () => {
    await agent?.close();
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('answers a target older than its lifetime expired', async () => {
    const win = (await toolJson<{ windows: { window: string }[] }>(agent, 'window_list')).windows[0]?.window;
    const read = await toolJson<WindowReadAnswer>(agent, 'window_read', { window: win, format: 'flat' });
    const target = read.elements?.find((e) => e.automation_id === 'counter')?.target;
    await new Promise((r) => setTimeout(r, 2000));
    const r = await toolJson<Receipt>(agent, 'element_act', { target, action: 'focus' });
    assert.equal(r.refusal?.code, 'snapshot_expired');
  });
});
