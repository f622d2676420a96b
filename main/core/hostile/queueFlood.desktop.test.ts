import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { PendingApproval, Receipt } from '../../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../../desktop/privateDesktop.js';
import { REPO_ROOT } from '../runtime/paths.js';
import { UiClient, httpClient, removeDataDir, serve, toolJson, type Served } from '../../testing/serveHarness.js';
import { exportJournal } from '../journal/index.js';

const FIXTURE = `${REPO_ROOT}desktop/apps/fixtureApp.py`;
const MIB = 1024 * 1024;

/** The supervisor's resident memory, from /proc. */
async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/**
 * docs/supervision.md#bounds, through the real server, helper and fixture: a flood of 1,000 actions from
 * many MCP sessions of one token — some under one name, some each under its own — while a person
 * watches and another UI socket has stopped reading. The queue stays within its bounds and fair to a
 * quiet agent, the supervisor's memory and every UI frame stay small, and a Stop is answered and
 * journaled at once.
 */
describe('as a hostile agent: a flood of approvals cannot exhaust the supervisor', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let ui: UiClient;
  let win: string;
  const clients: Client[] = [];
  /** The flood's calls, settled: the clients are closed only once nothing of theirs is in flight. */
  let settle: Promise<unknown> = Promise.resolve();

  before(async () => {
    desktop = await startPrivateDesktop();
    await desktop.launch('/usr/bin/python3', [FIXTURE, '--rows', '20'], { waitForWindow: 'Overseer Fixture' });
    s = await serve(desktop.env);
    ui = await UiClient.connect(s);
    // Answers come back `pending` after 2 s, so a flooding agent is free to send more.
    await ui.command('update_settings', { approval_wait_ms: 2000 });
    const probe = await httpClient(s, 'probe');
    clients.push(probe);
    win =
      (await toolJson<{ windows: { window: string; title: string }[] }>(probe, 'window_list')).windows.find((w) => w.title === 'Overseer Fixture')?.window ??
      '';
  });
  after(async () => {
    await Promise.race([settle, new Promise((r) => setTimeout(r, 5000))]);
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    ui?.close();
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  /**
   * 1,000 set_value calls of `kib` KiB of text from 20 sessions (ten under one name, ten each under
   * its own), a quiet agent's call in the middle, then the person's Stop; `stall`: a second UI of
   * the person has stopped reading throughout. Asserts what holds for any flood; answers the figures.
   */
  const flood = async (kib: number, stall: boolean): Promise<{ rssMax: number; stalledLargest: number }> => {
    const pid = s.child.pid as number;
    const rssBefore = await rssMiB(pid);
    // A second UI of the person that stopped reading: its socket must not make the supervisor keep everything for it.
    const stalled = new WebSocket(`${s.origin.replace(/^http/, 'ws')}/ui`, { headers: { origin: s.origin, cookie: await s.uiCookie() } });
    await new Promise<void>((resolve, reject) => stalled.once('open', () => resolve()).once('error', reject));
    let stalledFrames = 0;
    let stalledLargest = 0;
    stalled.on('message', (data: Buffer) => {
      stalledFrames++;
      stalledLargest = Math.max(stalledLargest, data.length);
    });
    if (stall) (stalled as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();

    // Ten sessions under one name, ten each under its own name: 50 calls each.
    if (clients.length === 1) for (let i = 0; i < 20; i++) clients.push(await httpClient(s, i < 10 ? 'flooder' : `flooder-${i}`));
    const flooders = clients.slice(1);
    const since = ui.mark();
    const frameStart = ui.frameBytes.length;
    let rssMax = rssBefore;
    const sampler = setInterval(() => void rssMiB(pid).then((r) => (rssMax = Math.max(rssMax, r))), 100);
    const started = Date.now();
    const flood = flooders.flatMap((c) =>
      Array.from({ length: 50 }, () =>
        toolJson<Receipt>(
          c,
          'element_act',
          // Every card the person's UI is sent carries the whole text (receipts carry its first 2,000 characters).
          { window: win, selector: { automation_id: 'name_entry' }, action: 'set_value', text: `flood ${'x'.repeat(kib * 1024)}` },
          { timeout: 180_000 },
        ),
      ),
    );
    settle = Promise.allSettled(flood).then(() => clearInterval(sampler));

    // A quiet agent still reaches the person while the flood is at its bound: past half the queue,
    // with the queue's bounds already refusing the flood (how full it gets depends on which agents came first).
    const busy = await ui.waitFor<PendingApproval[]>('pending', (list) => list.length >= 32, 60_000, since);
    await Promise.race(flood.map((call) => call.then((a) => (a.refusal?.code === 'denied' ? undefined : new Promise(() => {})))));
    const quiet = clients[0] as Client;
    const quietCall = toolJson<Receipt>(quiet, 'element_act', { window: win, selector: { automation_id: 'name_entry' }, action: 'set_value', text: 'quiet' });
    const quietCard = await ui.waitFor<PendingApproval[]>('pending', (list) => list.some((p) => p.agent === 'probe'), 30_000, since);
    assert.ok(
      quietCard.some((p) => p.agent === 'probe'),
      'the quiet agent’s card is in the queue',
    );
    const peak = Math.max(
      busy.length,
      ...ui.events
        .slice(since)
        .filter((e) => e.event === 'pending')
        .map((e) => (e.data as PendingApproval[]).length),
    );
    assert.ok(peak <= 128, `the queue never held more than 128 cards (it held ${peak})`);
    const byAgent = new Map<string, number>();
    for (const p of ui.pending) byAgent.set(p.agent, (byAgent.get(p.agent) ?? 0) + 1);
    assert.ok((byAgent.get('flooder') ?? 0) <= 16, `ten sessions under one name hold ${byAgent.get('flooder')} cards`);

    // The person stops everything in the middle of the flood.
    const stopAsked = performance.now();
    const stopped = await ui.command<{ brake: string }>('brake', { action: 'stop' });
    const stopMs = performance.now() - stopAsked;
    assert.equal(stopped.brake, 'stopped');
    const journal: Record<string, unknown>[] = [];
    await exportJournal(join(s.dataDir, 'journal'), (l) => journal.push(JSON.parse(l) as Record<string, unknown>));
    assert.ok(
      journal.some((r) => r['event'] === 'brake' && r['state'] === 'stopped'),
      'the Stop was on disk when it was answered',
    );

    const answers = await Promise.all(flood);
    const quietAnswer = await quietCall;
    clearInterval(sampler);
    rssMax = Math.max(rssMax, await rssMiB(pid));
    const seconds = (Date.now() - started) / 1000;
    const outcomes = new Map<string, number>();
    for (const a of answers) {
      const why = a.refusal ?? a.error;
      const key = why !== undefined ? `${why.code}${why.data?.['reason'] !== undefined ? `:${JSON.stringify(why.data['reason'])}` : ''}` : a.outcome;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    const frames = ui.frameBytes.slice(frameStart);
    const biggest = Math.max(...frames);
    console.log(
      `[flood] 1000 calls of ${kib} KiB in ${seconds.toFixed(1)} s: ${JSON.stringify(Object.fromEntries(outcomes))}; peak queue ${peak}; ` +
        `Stop answered (journaled) in ${stopMs.toFixed(0)} ms; supervisor RSS ${rssBefore.toFixed(0)} → max ${rssMax.toFixed(0)} MiB; ` +
        `${frames.length} UI frames, largest ${(biggest / 1024).toFixed(1)} KiB, ${(frames.reduce((a, b) => a + b, 0) / MIB).toFixed(2)} MiB in all; ` +
        `the stalled UI got ${stalledFrames} frames so far`,
    );
    assert.equal(answers.length, 1000);
    assert.ok(
      answers.every((a) => a.outcome === 'refused' || a.outcome === 'pending' || a.error !== undefined),
      'nothing ran',
    );
    assert.ok((outcomes.get('braked') ?? 0) + (outcomes.get('pending') ?? 0) > 0, 'the Stop answered what waited');
    assert.ok(
      [...outcomes.keys()].some((k) => k.startsWith('denied:')),
      'the flood past the bounds was refused, saying why',
    );
    assert.ok(quietAnswer.refusal?.code === 'braked' || quietAnswer.outcome === 'pending', JSON.stringify(quietAnswer.refusal));
    assert.ok(biggest < 256 * 1024, `every UI frame stayed under 256 KiB (largest ${biggest} bytes)`);
    assert.equal(ui.pending.length, 0, 'the Stop emptied the queue');

    await ui.command('brake', { action: 'resume' });
    if (!stall) {
      stalled.close();
      return { rssMax, stalledLargest };
    }
    // The stalled UI, once it reads again, catches up with one snapshot and sees the empty queue.
    const caughtUp = new Promise<void>((resolve) =>
      stalled.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString('utf8')) as { event?: string; data?: { pending?: unknown[]; brake?: string } };
        if (frame.event === 'snapshot' && frame.data?.pending?.length === 0) resolve();
      }),
    );
    assert.match(s.stderr(), /a UI socket fell \d+ bytes behind/, 'the stalled socket was held back, not buffered without end');
    (stalled as unknown as { _socket: { resume(): void } })._socket.resume();
    await caughtUp;
    stalled.close();
    console.log(`[flood] the stalled UI caught up: ${stalledFrames} frames, largest ${(stalledLargest / 1024).toFixed(1)} KiB`);
    return { rssMax, stalledLargest };
  };

  it('1,000 cards of 16 KiB from 20 sessions: bounded, fair, small frames, RSS under 400 MiB, and a Stop answered and journaled', async () => {
    const { rssMax } = await flood(16, false);
    assert.ok(rssMax < 400, `supervisor RSS stayed under 400 MiB (max ${rssMax.toFixed(0)} MiB)`);
  });

  it('1,000 cards of 48 KiB while another UI of the person has stopped reading: it is held back, then caught up with one snapshot in small frames', async () => {
    const { stalledLargest } = await flood(48, true);
    assert.ok(stalledLargest < 256 * 1024, `the stalled UI's frames, its catch-up snapshot included, stayed under 256 KiB (largest ${stalledLargest} bytes)`);
  });
});
