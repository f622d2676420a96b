import { performance } from 'node:perf_hooks';
import { startPrivateDesktop } from '../desktop/privateDesktop.js';
import { spawnHelper } from '../main/core/helperProcess.js';
import { REPO_ROOT } from '../main/core/paths.js';

const which = process.argv.slice(2);
const APPS: Record<string, { cmd: string; args: string[]; wait: string | RegExp; pick: (t: string) => boolean }> = {
  widget: { cmd: 'gtk3-widget-factory', args: [], wait: /.*/, pick: () => true },
  mousepad: { cmd: 'mousepad', args: [], wait: 'Untitled 1 - Mousepad', pick: (t) => t === 'Untitled 1 - Mousepad' },
  calc: { cmd: 'gnome-calculator', args: [], wait: 'Calculator', pick: (t) => t === 'Calculator' },
  big: { cmd: '/usr/bin/python3', args: [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--big', '10000'], wait: 'Overseer Big', pick: (t) => t === 'Overseer Big' },
  fixture: {
    cmd: '/usr/bin/python3',
    args: [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '3000'],
    wait: 'Overseer Fixture',
    pick: (t) => t === 'Overseer Fixture',
  },
};
const desktop = await startPrivateDesktop();
try {
  for (const name of which) {
    const app = APPS[name]!;
    const launched = await desktop.launch(app.cmd, app.args, { waitForWindow: app.wait });
    const env = { ...desktop.env, OVERSEER_PREFETCH: process.env['PF'] ?? '0' };
    const lister = spawnHelper(env);
    await lister.call('hello', { client: 'x' });
    const win = (await lister.call('window_list', {})).windows.find((w) => w.pid === launched.pid && app.pick(w.title))!;
    await lister.call('window_read', { window: win.window, max_nodes: 5000, max_children_per_node: 5000, max_tokens: 200000 }, { timeoutMs: 60000 });
    await lister.close();
    for (const rects of [false, true]) {
      const h = spawnHelper(env);
      await h.call('hello', { client: 'x' });
      if (process.env['WAIT']) await new Promise((r) => setTimeout(r, Number(process.env['WAIT'])));
      const p = { window: win.window, max_nodes: 5000, max_children_per_node: 5000, max_tokens: 200000, rects, profile: true };
      const rows: string[] = [];
      for (let i = 0; i < 6; i++) {
        const t0 = performance.now();
        const r = await h.call('window_read', p, { timeoutMs: 60000 });
        const ms = performance.now() - t0;
        const pr = r.profile!;
        rows.push(
          `${i === 0 ? 'cold' : 'rep '} ${ms.toFixed(1)}ms read_ms=${r.read_ms} nodes=${r.node_count} calls=${pr.calls} reload=${pr.loads_reloaded} reuse=${pr.loads_reused} ${JSON.stringify(pr.phases_ms)} ${i === 0 ? JSON.stringify(pr.calls_by_member) : ''}`,
        );
        if (i === 0 && r.notes.length) rows.push('  notes: ' + r.notes.join(' | ').slice(0, 300));
      }
      console.log(`== ${name} rects=${rects}\n${rows.join('\n')}`);
      await h.close();
    }
  }
} finally {
  await desktop.stop();
}
