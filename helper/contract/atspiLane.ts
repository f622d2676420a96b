import { startPrivateDesktop } from '../../desktop/privateDesktop.js';
import { spawnHelper } from '../../main/core/helperLink/helperProcess.js';
import { REPO_ROOT } from '../../main/core/runtime/paths.js';
import type { ContractSetup } from './contractSetup.js';

/** The GTK3 fixture application. */
export const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const FREEZE_S = 6;
const ROWS = 3000;

/** A contract setup for the AT-SPI backend: a private desktop, two fixture instances, the helper. */
export async function atspiSetup(helperEnv: Record<string, string> = {}): Promise<ContractSetup> {
  const desktop = await startPrivateDesktop();
  try {
    const app = await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', String(ROWS), '--freeze-seconds', String(FREEZE_S)], {
      waitForWindow: 'Overseer Fixture',
    });
    const other = await desktop.launch('/usr/bin/python3', [FIXTURE, '--title', 'Second Fixture', '--rows', '50'], { waitForWindow: 'Second Fixture' });
    // The contract lanes also make the helper check its own answers against the protocol.
    const helper = spawnHelper({ ...desktop.env, OVERSEER_HELPER_SELF_CHECK: '1', ...helperEnv });
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
        await desktop.stop();
      },
    };
  } catch (error) {
    await desktop.stop();
    throw error;
  }
}
