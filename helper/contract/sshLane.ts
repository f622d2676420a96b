import { startPrivateDesktop } from '../../desktop/privateDesktop.js';
import { sshTarget } from '../../main/core/connections/sshTarget.js';
import { startPrivateSshd } from '../../main/testing/privateSshd.js';
import { buildRemoteHelperForTest } from '../../main/testing/remoteHelperBuild.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FIXTURE } from './atspiLane.js';
import type { ContractSetup } from './contractSetup.js';

const FREEZE_S = 6;
const ROWS = 3000;

/**
 * The AT-SPI contract through an ssh connection (docs/connections.md#ssh): the helper bundle is
 * installed and run by a private sshd whose sessions see a second private desktop with the fixture;
 * its frames travel through the system's ssh client, and every answer must be what the local lane gets.
 */
export async function sshSetup(): Promise<ContractSetup> {
  const bundle = buildRemoteHelperForTest();
  const dataDir = mkdtempSync(join(tmpdir(), 'overseer-ssh-contract-'));
  const desktop = await startPrivateDesktop();
  const sshd = await startPrivateSshd().catch(async (error: unknown) => {
    await desktop.stop();
    throw error;
  });
  const target = sshTarget(
    {
      name: 'contract',
      kind: 'ssh',
      enabled: true,
      host: sshd.alias,
      ssh_config: sshd.clientConfig,
      display: desktop.display,
      ...(desktop.env['DBUS_SESSION_BUS_ADDRESS'] !== undefined ? { bus: desktop.env['DBUS_SESSION_BUS_ADDRESS'] } : {}),
    },
    { dataDir, log: () => {}, bundle },
  );
  const cleanUp = async (): Promise<void> => {
    await target.close();
    await sshd.stop();
    await desktop.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dirname(bundle), { recursive: true, force: true });
  };
  try {
    const app = await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', String(ROWS), '--freeze-seconds', String(FREEZE_S)], {
      waitForWindow: 'Overseer Fixture',
    });
    const other = await desktop.launch('/usr/bin/python3', [FIXTURE, '--title', 'Second Fixture', '--rows', '50'], { waitForWindow: 'Second Fixture' });
    await target.prepare?.();
    // The contract lanes also make the helper check its own answers against the protocol (forwarded to the remote).
    const helper = target.spawnHelper({ OVERSEER_HELPER_SELF_CHECK: '1' });
    const list = await helper.call('window_list', {});
    const id = (title: string): string => {
      const w = list.windows.find((x) => x.title === title);
      if (w === undefined) throw new Error(`window "${title}" not listed: ${JSON.stringify(list)}\n${helper.stderr()}`);
      return w.window;
    };
    return {
      backend: 'atspi',
      helper,
      fixtureWindow: id('Overseer Fixture'),
      otherWindow: id('Second Fixture'),
      fixturePid: app.pid,
      freezeMs: FREEZE_S * 1000,
      rows: ROWS,
      id: (name) => name,
      comboItemRole: 'menu_item',
      lacks: {},
      killOther: () => other.stop(),
      async stop() {
        await helper.close();
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
