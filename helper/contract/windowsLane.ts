import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { prepareWindows, prepareWine, type WindowsLane } from '../../e2e/windows/lanes.js';
import { spawnHelper } from '../../main/core/helperLink/helperProcess.js';
import type { ContractFeature, ContractSetup } from './contractSetup.js';

const FREEZE_S = 6;
// Each row is a message to another process, ~0.4 ms under Wine: a longer list would make every
// whole-window search (the contract's waits) slower than their budgets on a loaded machine.
const ROWS = 300;

/** The contract's names onto the Win32 fixture's control ids (e2e/fixtures/win32Fixture.c). */
const IDS: Readonly<Record<string, string>> = {
  counter: '1001',
  clicks: '1002',
  dup_a: '1003',
  dup_b: '1004',
  name_entry: '1005',
  password: '1006',
  subscribe: '1007',
  size_small: '1008',
  size_large: '1009',
  color: '1010',
  long_list: '1011',
  intl: '1012',
  save_ru: '1013',
  disabled: '1014',
  open_dialog: '1015',
  status: '1016',
  freeze: '1019',
  hello_ru: '1020',
  replaceable: '1021',
  replacements: '1022',
  renamable: '1023',
};

/** What the Win32 tier cannot do (no message contract, no foreground input), and what the Win32 fixture does not have. */
function lacks(backend: string): Partial<Record<ContractFeature, string>> {
  const fixture = 'the Win32 fixture has no';
  const common = {
    listing_asks_app: 'window titles are read without asking the application (InternalGetWindowText), so a frozen one is listed in full',
    backs_off: 'the Windows backends have no per-application circuit breaker: each read of a frozen application waits out its own budget',
  };
  if (backend === 'uia')
    return {
      ...common,
      range_value: `${fixture} slider or spin button`,
      expand: `${fixture} expander`,
      tree: `${fixture} tree view`,
      scroll: `${fixture} scrollable container`,
    };
  return {
    ...common,
    range_value: 'the Win32 tier has no message contract for sliders or spin buttons',
    expand: 'the Win32 tier has no message contract for expanders',
    tree: 'the Win32 tier has no message contract for tree views',
    focus: 'the Win32 tier sends no foreground input, and focusing another process needs it',
    scroll: 'the Win32 tier has no message contract for scrolling an element into view',
  };
}

async function windowOf(helper: ReturnType<typeof spawnHelper>, title: string): Promise<{ window: string; pid: number }> {
  for (let i = 0; i < 150; i++) {
    const w = (await helper.call('window_list', {})).windows.find((x) => x.title === title);
    if (w !== undefined) return { window: w.window, pid: w.pid };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`window "${title}" did not appear\n${helper.stderr()}`);
}

/** A contract setup for the Windows backends: under Wine here (auto → the Win32 tier), natively on Windows (UIA, or win32). */
export async function windowsSetup(): Promise<ContractSetup> {
  let desktop: PrivateDesktop | undefined;
  let lane: WindowsLane;
  if (process.platform === 'win32') lane = prepareWindows();
  else {
    desktop = await startPrivateDesktop();
    lane = prepareWine(desktop.env);
  }
  const launched: ChildProcess[] = [];
  try {
    launched.push(lane.launch(lane.fixtureExe, ['--rows', String(ROWS), '--freeze-seconds', String(FREEZE_S)]));
    const other = lane.launch(lane.fixtureExe, ['--title', 'Second Fixture', '--rows', '50']);
    launched.push(other);
    const helper = spawnHelper(
      { ...process.env, ...desktop?.env, OVERSEER_HELPER_SELF_CHECK: '1' },
      lane.helperCommand(join(desktop?.dir ?? lane.appDir, 'contract-helper.log'), lane.backend),
    );
    const main = await windowOf(helper, 'Overseer Fixture');
    const second = await windowOf(helper, 'Second Fixture');
    const backend = (await helper.call('hello', {})).backend;
    return {
      backend,
      helper,
      fixtureWindow: main.window,
      otherWindow: second.window,
      fixturePid: main.pid,
      freezeMs: FREEZE_S * 1000,
      rows: ROWS,
      id: (name) => {
        const id = IDS[name];
        if (id === undefined) throw new Error(`the Win32 fixture has no control for "${name}"`);
        return id;
      },
      comboItemRole: 'list_item',
      lacks: lacks(backend),
      killOther: () => {
        other.kill('SIGKILL');
        return new Promise((r) => setTimeout(r, 500));
      },
      async stop() {
        await helper.close();
        lane.stop();
        await desktop?.stop();
      },
    };
  } catch (error) {
    lane.stop();
    await desktop?.stop();
    throw error;
  }
}
