// A first look without touching your own desktop: starts a private test desktop with the fixture
// application, starts the helper, lists windows, reads the fixture, finds and invokes a button.
import { spawnHelper } from '../main/core/helperLink/helperProcess.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import type { Element } from '../protocol/index.js';

const line = (e: Element, depth: number): string =>
  `${'  '.repeat(depth)}${e.role}${e.name ? ` "${e.name}"` : ''}${e.value !== undefined ? ` = ${JSON.stringify(e.value)}` : ''}${e.redacted ? ' (redacted)' : ''}${e.automation_id ? ` #${e.automation_id}` : ''}`;
const print = (els: Element[], depth = 0): void => {
  for (const e of els) {
    console.log(line(e, depth));
    print(e.children ?? [], depth + 1);
  }
};

const desktop = await startPrivateDesktop();
try {
  await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '20'], { waitForWindow: 'Overseer Fixture' });
  const helper = spawnHelper(desktop.env);
  const hello = await helper.call('hello', {});
  console.log(`helper: backend ${hello.backend} ${hello.version}, pid ${hello.pid}`);
  const { windows } = await helper.call('window_list', {});
  for (const w of windows) console.log(`window ${w.window}: "${w.title}" (${w.app}, pid ${w.pid})`);
  const fixture = windows.find((w) => w.title === 'Overseer Fixture');
  if (fixture === undefined) throw new Error('the fixture window did not appear');
  const read = await helper.call('window_read', { window: fixture.window, max_nodes: 80 });
  console.log(`\nwindow_read: ${read.node_count} elements in ${read.read_ms} ms, truncated_by ${JSON.stringify(read.truncated_by)}`);
  print(read.elements);
  const receipt = await helper.call('element_act', {
    window: fixture.window,
    selector: { automation_id: 'name_entry' },
    action: 'set_value',
    text: 'Hello from Overseer',
  });
  console.log(
    `\nelement_act set_value: ${receipt.outcome} via ${receipt.path}, verification ${receipt.verification}, value now ${JSON.stringify(receipt.after?.value)}`,
  );
  await helper.close();
} finally {
  await desktop.stop();
}
