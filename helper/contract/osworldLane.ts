// The OSWorld lane of the backend contract: the helper with OVERSEER_BACKEND=osworld, reading the
// tree of a private "VM" desktop through the project's OSWorld-compatible server
// (main/testing/osworldServer.ts). The helper's own environment has no display: nothing it reads can
// come from anywhere but the VM. The VM's tree is read-only and names neither processes nor automation
// ids, so the lane finds the contract's elements by role and name and says what it lacks.

import { startPrivateDesktop } from '../../desktop/privateDesktop.js';
import { spawnHelper } from '../../main/core/helperLink/helperProcess.js';
import { startOsworldServer, type OsworldServer } from '../../main/testing/osworldServer.js';
import { FIXTURE } from './atspiLane.js';
import type { ContractSetup } from './contractSetup.js';

const FREEZE_S = 6;
/** Rows of the long list: every read walks the whole VM tree, so fewer than the AT-SPI lane's. */
const ROWS = 200;

/** A contract setup for the osworld backend: the VM desktop, two fixture instances, the server, the helper. */
export async function osworldContractSetup(): Promise<ContractSetup> {
  const vm = await startPrivateDesktop();
  let server: OsworldServer | undefined;
  try {
    const app = await vm.launch('/usr/bin/python3', [FIXTURE, '--rows', String(ROWS), '--freeze-seconds', String(FREEZE_S)], {
      waitForWindow: 'Overseer Fixture',
    });
    const other = await vm.launch('/usr/bin/python3', [FIXTURE, '--title', 'Second Fixture', '--rows', '50'], { waitForWindow: 'Second Fixture' });
    server = await startOsworldServer(vm);
    const env: Record<string, string | undefined> = { ...process.env, DISPLAY: '', DBUS_SESSION_BUS_ADDRESS: '', AT_SPI_BUS_ADDRESS: '' };
    const helper = spawnHelper({
      ...env,
      OVERSEER_HELPER_SELF_CHECK: '1',
      OVERSEER_BACKEND: 'osworld',
      OVERSEER_OSWORLD_URL: server.url,
      OVERSEER_OSWORLD_TIMEOUT_MS: '20000',
      OVERSEER_CONNECTION: 'vm1',
    });
    const list = await helper.call('window_list', {});
    const id = (title: string): string => {
      const w = list.windows.find((x) => x.title === title);
      if (w === undefined) throw new Error(`window "${title}" not listed: ${JSON.stringify(list)}\n${helper.stderr()}`);
      return w.window;
    };
    const running = server;
    return {
      backend: 'osworld',
      helper,
      fixtureWindow: id('Overseer Fixture'),
      otherWindow: id('Second Fixture'),
      fixturePid: app.pid,
      freezeMs: FREEZE_S * 1000,
      rows: ROWS,
      id: (name) => name,
      byName: {
        counter: { role: 'button', name: 'Counter' },
        disabled: { role: 'button', name: 'Disabled' },
        password: { role: 'edit', name: 'Password' },
        hello_ru: { role: 'button', name: 'ПРИВЕТ' },
        save_ru: { role: 'button', name: 'Сохранить' },
        name_entry: { role: 'edit', name: 'Name' },
        intl: { role: 'label', name: 'Grüße ✓ 日本語' },
      },
      comboItemRole: 'menu_item',
      lacks: {
        act: "OSWorld's server has no call that acts on an accessible: the tree is read-only (the screen tier acts there)",
        automation_id: "OSWorld's accessibility XML carries no AT-SPI accessible ids",
        process_identity: "OSWorld's server names no processes: windows carry pid 0",
      },
      killOther: () => other.stop(),
      async stop() {
        await helper.close();
        await running.stop();
        await vm.stop();
      },
    };
  } catch (error) {
    await server?.stop();
    await vm.stop();
    throw error;
  }
}
