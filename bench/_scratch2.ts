import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { spawnHelper, SOURCE_HELPER } from '../main/core/helperProcess.js';
import { REPO_ROOT } from '../main/core/paths.js';
const desktop = await startPrivateDesktop();
try {
  const launched = await desktop.launch('/usr/bin/python3', [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--big', '10000'], { waitForWindow: 'Overseer Big' });
  const l = spawnHelper({ ...desktop.env, OVERSEER_PREFETCH: '0' });
  const win = (await l.call('window_list', {})).windows.find((w) => w.pid === launched.pid)!;
  await l.close();
  const h = spawnHelper({ ...desktop.env, OVERSEER_PREFETCH: '0' }, { ...SOURCE_HELPER, args: ['--cpu-prof', '--cpu-prof-dir=/tmp/hprof', ...SOURCE_HELPER.args] });
  await h.call('hello', { client: 'x' });
  for (let i = 0; i < 3; i++) {
    const r = await h.call('window_read', { window: win.window, max_nodes: 5000, max_children_per_node: 5000, max_tokens: 200000, rects: true, timeout_ms: 20000, profile: true }, { timeoutMs: 60000 });
    console.log(JSON.stringify(r.profile));
    // drop rects: a BoundsChanged-like invalidation is not reachable; use a fresh cache by reading another way
  }
  await h.close();
} finally {
  await desktop.stop();
}
