// docs/security.md#nothing-an-agent-sends-can-take-the-supervisor-down for the screen tier: floods of read-only screen work through the real
// `overseer serve`, helper and X server never get the helper killed. Every call is answered (an
// image, or `timeout` with reason `busy`), other agents' reads and the person's Screen view go on,
// and another agent's screenshots never push out the one an approved click was planned on.
// Wall-clock figures are printed, never asserted.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import type { HelperHealth, HelperParams, PendingApproval, Receipt, ScreenshotAnswer, UiSnapshot } from '../../../protocol/index.js';
import { spawnHelper } from '../helperLink/helperProcess.js';
import { UiClient, httpClient, removeDataDir, serve, toolJson, type Served } from '../../testing/serveHarness.js';
import { REPO_ROOT } from '../runtime/paths.js';
import { cardIs, type CardOf } from '../../testing/cards.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const BIG_JPEG = { max_width: 4096, max_height: 4096, format: 'jpeg', quality: 100 } as const;

/** How one screenshot call was answered. */
type Outcome = 'image' | 'busy' | `other: ${string}`;

/** One screenshot call, classified: an image, a typed busy refusal, or anything else (a failure of this test). */
async function screenshot(client: Client, args: Record<string, unknown>): Promise<Outcome> {
  const r = await client.callTool({ name: 'screenshot', arguments: { ...args, output: 'json' } }, undefined, { timeout: 120_000 });
  const content = r.content as { type: string; text?: string; data?: string }[];
  if (r.isError !== true) return content.some((c) => c.type === 'image' && (c.data?.length ?? 0) > 0) ? 'image' : 'other: no image';
  const text = content.map((c) => c.text ?? '').join('');
  const error = (JSON.parse(text) as { error?: { code: string; data?: { reason?: string } } }).error;
  return error?.code === 'timeout' && error.data?.reason === 'busy' ? 'busy' : `other: ${text.slice(0, 300)}`;
}

/**
 * The helper bundled as scripts/buildShell.mjs bundles it (the helper and its encoder worker side
 * by side), into a fresh folder under dist/ so its external packages resolve from node_modules.
 */
function bundleHelper(): string {
  const dir = mkdtempSync(join(REPO_ROOT, 'dist', '.load-test-'));
  execFileSync(
    join(REPO_ROOT, 'node_modules', '.bin', 'esbuild'),
    [
      'helper/main.ts',
      'helper/screen/encodeWorker.ts',
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--target=node22',
      '--entry-names=[name]',
      '--out-extension:.js=.mjs',
      `--outdir=${dir}`,
      '--external:electron',
      '--external:koffi',
      '--external:usocket',
      '--external:x11',
      '--log-level=warning',
      `--banner:js=import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);`,
    ],
    { cwd: REPO_ROOT, stdio: 'pipe' },
  );
  return dir;
}

function count<T extends string>(items: readonly T[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[i] = (out[i] ?? 0) + 1;
  return out;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

describe('a flood of screen work never gets the helper killed', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let ui: UiClient;
  let win: string;
  let helperAtStart: HelperHealth;
  const clients: Client[] = [];

  const connect = async (name: string): Promise<Client> => {
    const c = await httpClient(s, name);
    clients.push(c);
    return c;
  };
  const helper = async (): Promise<HelperHealth> => (await ui.command<UiSnapshot>('snapshot')).helper;
  /** The helper is the one that started, never restarted. */
  const stillTheSameHelper = async (): Promise<void> => {
    const now = await helper();
    assert.deepEqual(
      [now.state, now.restarts, now.pid],
      ['ready', 0, helperAtStart.pid],
      `helper now ${JSON.stringify(now)}; stderr:\n${s.stderr().slice(-3000)}`,
    );
  };
  /** The watchdog's slow hellos the supervisor logged since `from` (stderr offset). */
  const slowHellos = (from: number): string[] =>
    s
      .stderr()
      .slice(from)
      .split('\n')
      .filter((l) => l.includes('watchdog hello'));

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '20'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    ui = await UiClient.connect(s);
    const lister = await connect('lister');
    win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(lister, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
    assert.notEqual(win, '');
    helperAtStart = await helper();
    assert.equal(helperAtStart.state, 'ready');
  });
  after(async () => {
    ui?.close();
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('another agent’s 17 screenshots leave the one an approved click was planned on: the click is dispatched', async () => {
    const a = await connect('agent-a');
    const b = await connect('agent-b');
    const shot = await a.callTool({ name: 'screenshot', arguments: { window: win, max_width: 4096, max_height: 4096 } });
    assert.notEqual(shot.isError, true, JSON.stringify(shot.content).slice(0, 500));
    const planned = shot.structuredContent as ScreenshotAnswer;
    assert.equal(planned.scale_x, 1);
    // A harmless spot: the middle of the fixture's "Clicks: 0" label.
    const found = await toolJson<{ matches: { rect?: { cx: number; cy: number } }[] }>(a, 'element_find', {
      window: win,
      selector: { automation_id: 'clicks' },
    });
    const rect = found.matches[0]?.rect;
    assert.ok(rect !== undefined, JSON.stringify(found));
    const since = ui.mark();
    const receipt = toolJson<Receipt>(a, 'click', { x: rect.cx - planned.origin.x, y: rect.cy - planned.origin.y }, { timeout: 120_000 });
    const card = await ui
      .waitFor<PendingApproval[]>('pending', (l) => l.some(cardIs('screen')), 15_000, since)
      .then((l) => l.find(cardIs('screen')) as CardOf<'screen'>);
    assert.equal(card.screen.card.planned, true, 'the card shows the screenshot A planned on');
    const others: Outcome[] = [];
    for (let i = 0; i < 17; i++) others.push(await screenshot(b, { max_width: 320, max_height: 200 }));
    assert.deepEqual(count(others), { image: 17 }, 'B’s screenshots, one at a time, are all served');
    await ui.command('approve', { approval_id: card.approval_id });
    const done = await receipt;
    assert.equal(done.outcome, 'completed', JSON.stringify(done).slice(0, 800));
    assert.equal(done.decision?.verdict, 'approved');
    await stillTheSameHelper();
  });

  it('4 agents × 32 concurrent 4096-px JPEG screenshots at quality 100: every call answered, a fifth agent’s reads and the person’s Screen view go on', async () => {
    const agents = await Promise.all([0, 1, 2, 3].map((i) => connect(`flood-${i}`)));
    const reader = await connect('reader');
    const logFrom = s.stderr().length;
    let flooding = true;
    const reads: { ms: number; ok: boolean; what: string }[] = [];
    const readLoop = (async () => {
      for (let i = 0; flooding; i++) {
        const started = Date.now();
        const r =
          i % 2 === 0
            ? await toolJson<{ windows?: unknown[] }>(reader, 'window_list', {}, { timeout: 120_000 })
            : await toolJson<{ elements?: unknown[] }>(reader, 'window_read', { window: win, max_depth: 3 }, { timeout: 120_000 });
        reads.push({
          ms: Date.now() - started,
          ok: r.error === undefined,
          what: r.error === undefined ? (i % 2 === 0 ? 'window_list' : 'window_read') : JSON.stringify(r.error),
        });
      }
    })();
    const views: { ms: number; ok: boolean; what: string }[] = [];
    const viewLoop = (async () => {
      while (flooding) {
        const started = Date.now();
        const r = await ui.command<{ width: number }>('screen_view', {}).then(
          (v) => ({ ok: v.width > 0, what: 'picture' }),
          (e: Error) => ({ ok: false, what: e.message }),
        );
        views.push({ ms: Date.now() - started, ...r });
        await new Promise((res) => setTimeout(res, 250));
      }
    })();
    const started = Date.now();
    const perAgent = await Promise.all(agents.map((c) => Promise.all(Array.from({ length: 32 }, () => screenshot(c, BIG_JPEG)))));
    const floodMs = Date.now() - started;
    flooding = false;
    await Promise.all([readLoop, viewLoop]);
    const all = perAgent.flat();
    const tally = count(all);
    const readMs = reads.map((r) => r.ms).sort((x, y) => x - y);
    const viewMs = views.map((v) => v.ms).sort((x, y) => x - y);
    const hellos = slowHellos(logFrom);
    console.log(
      [
        `[load] 128 screenshots {4096, 4096, jpeg, 100} from 4 agents answered in ${floodMs} ms: ${JSON.stringify(tally)}`,
        `[load] per agent: ${perAgent.map((o) => JSON.stringify(count(o))).join(' ')}`,
        `[load] fifth agent: ${reads.length} reads meanwhile, p50 ${quantile(readMs, 0.5)} ms, max ${readMs.at(-1)} ms`,
        `[load] person's Screen view: ${views.length} pictures meanwhile, p50 ${quantile(viewMs, 0.5)} ms, max ${viewMs.at(-1)} ms`,
        `[load] watchdog hellos the supervisor logged as slow or late: ${hellos.length}${hellos.length > 0 ? `\n  ${hellos.slice(0, 10).join('\n  ')}` : ''}`,
      ].join('\n'),
    );
    assert.equal(all.length, 128);
    assert.deepEqual(
      all.filter((o) => o !== 'image' && o !== 'busy'),
      [],
      'every call is an image or a typed busy refusal',
    );
    assert.ok((tally['image'] ?? 0) > 0, 'the flood is served, not only refused');
    assert.deepEqual(
      reads.filter((r) => !r.ok),
      [],
      'the fifth agent’s reads all succeed',
    );
    assert.ok(reads.length >= 2, 'the fifth agent read while the flood ran');
    assert.deepEqual(
      views.filter((v) => !v.ok),
      [],
      'the person’s Screen view is never refused',
    );
    await stillTheSameHelper();
  });

  it('12 sessions × 17 element_act making card pictures: every call answered, the helper never restarted', async () => {
    // Cards answer `pending` after a second; the person's UI is away meanwhile (the queue's frames are another finding's).
    await ui.command('update_settings', { approval_wait_ms: 1000 });
    ui.close();
    const sessions = await Promise.all(Array.from({ length: 12 }, (_, i) => httpClient(s, `actor-${i}`)));
    const started = Date.now();
    const answers = await Promise.all(
      sessions.map((c) =>
        Promise.all(
          Array.from({ length: 17 }, () =>
            toolJson<Receipt>(c, 'element_act', { window: win, selector: { automation_id: 'subscribe' }, action: 'toggle' }, { timeout: 120_000 }).then(
              (r) => (r.error !== undefined ? `error ${r.error.code}` : `${r.outcome}${r.refusal !== undefined ? ` ${r.refusal.code}` : ''}`),
              (e: Error) => `threw ${e.message.slice(0, 200)}`,
            ),
          ),
        ),
      ),
    );
    const actMs = Date.now() - started;
    const tally = count(answers.flat());
    console.log(`[load] 204 element_act from 12 sessions answered in ${actMs} ms: ${JSON.stringify(tally)}`);
    await Promise.all(sessions.map((c) => c.close().catch(() => {})));
    ui = await UiClient.connect(s);
    await ui.command('update_settings', { approval_wait_ms: 45_000 });
    assert.equal(answers.flat().length, 204);
    assert.deepEqual(
      Object.keys(tally).filter((k) => k !== 'pending' && k !== 'refused denied'),
      [],
      'each call is a card waiting for the person, or refused past the 16 an agent may have waiting',
    );
    assert.ok(!s.stderr().includes('killing helper'), s.stderr().slice(-3000));
    await stillTheSameHelper();
  });
  it('the bundled helper encodes on its worker and answers hello all through 4 agents × 32 concurrent 4096-px JPEG captures', async () => {
    const dir = bundleHelper();
    const h = spawnHelper(desktop.env, { file: process.execPath, args: [join(dir, 'main.mjs')], cwd: dir });
    try {
      await h.call('hello', { client: 'load-test' }, { timeoutMs: 20_000 });
      const hellos: number[] = [];
      let flooding = true;
      const sampler = (async () => {
        while (flooding) {
          const sent = Date.now();
          await h.call('hello', {}, { timeoutMs: 60_000 });
          hellos.push(Date.now() - sent);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const started = Date.now();
      const bytes: number[] = [];
      const answers = await Promise.all(
        Array.from({ length: 128 }, (_, i) =>
          h.call('screen_capture', { ...BIG_JPEG, $scope: { agent: `agent-${i % 4}` } } as HelperParams<'screen_capture'>, { timeoutMs: 120_000 }).then(
            (r) => {
              bytes.push(r.image.data.length);
              return r.image.mime === 'image/jpeg' ? 'image' : 'other: not a jpeg';
            },
            (e: Error & { info?: { code: string; data?: { reason?: string } } }) =>
              e.info?.code === 'timeout' && e.info.data?.reason === 'busy' ? 'busy' : `other: ${e.message}`,
          ),
        ),
      );
      const floodMs = Date.now() - started;
      flooding = false;
      await sampler;
      const sorted = [...hellos].sort((x, y) => x - y);
      console.log(
        `[load] bundled helper, direct: 128 captures in ${floodMs} ms: ${JSON.stringify(count(answers))} (answers of ${(Math.max(...bytes) / 2 ** 20).toFixed(1)} MiB of base64 at most); ${hellos.length} hellos meanwhile, p50 ${quantile(sorted, 0.5)} ms, p95 ${quantile(sorted, 0.95)} ms, max ${sorted.at(-1)} ms`,
      );
      assert.deepEqual(
        answers.filter((a) => a !== 'image' && a !== 'busy'),
        [],
      );
      assert.ok(answers.includes('image'));
      assert.match(h.stderr(), /\[screen\] encoder worker ready/, `the worker started from the bundle:\n${h.stderr()}`);
      assert.doesNotMatch(h.stderr(), /did not start/);
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
