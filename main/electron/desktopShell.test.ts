import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { UI_COMMANDS, UI_EVENT_CHANNEL, type ElementApproval, type IpcAnswer, type UiFrame } from '../../protocol/index.js';
import { loadOrCreateToken } from '../core/server/tokenFile.js';
import { UiHub, type UiHandlers } from '../core/ui/uiHub.js';
import { desktopFlags, desktopLayout, desktopStdioConnection } from './desktopLayout.js';
import { APP_URL } from './security.js';
import { EMERGENCY_SHORTCUT, approvalNotification, followEvent, trayView, type TrayItem } from './trayModel.js';
import { eventRelay, registerUiIpc, type IpcInvokeEventLike } from './uiIpc.js';

function pending(id: string, over: Partial<ElementApproval> = {}): ElementApproval {
  return {
    kind: 'element',
    approval_id: id,
    receipt_id: `R${id}`,
    session: 'S1',
    agent: 'claude',
    action: 'set_value',
    text: 'hello',
    password: false,
    target: { id: 'e1', role: 'text', name: 'Recipient', states: {}, patterns: [] } as unknown as ElementApproval['target'],
    ancestor_path: [],
    window: { window: 'W1', title: 'Mail', app: 'mail', pid: 10 } as unknown as ElementApproval['window'],
    created_at: '2026-11-30T00:00:00Z',
    expires_at: '2026-11-30T00:02:00Z',
    risk_hints: [],
    ...over,
  };
}

const commands = (items: TrayItem[]): Record<string, boolean> => Object.fromEntries(items.flatMap((i) => (i.kind === 'command' ? [[i.id, i.enabled]] : [])));

describe('the desktop shell as data', () => {
  it('runs the helper and CLI unpacked from the archive when packaged, and from the build otherwise', () => {
    const packaged = desktopLayout({ appPath: '/opt/Overseer/resources/app.asar', packaged: true, execPath: '/opt/Overseer/overseer' });
    assert.deepEqual(packaged.helper, {
      file: '/opt/Overseer/overseer',
      args: ['/opt/Overseer/resources/app.asar.unpacked/dist/helper/main.mjs'],
      cwd: '/opt/Overseer/resources/app.asar.unpacked/dist/helper',
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
    assert.equal(packaged.cli, '/opt/Overseer/resources/app.asar.unpacked/dist/cli/overseer.mjs');
    assert.equal(packaged.preload, '/opt/Overseer/resources/app.asar/dist/electron/preload.cjs');
    assert.equal(packaged.rendererRoot, '/opt/Overseer/resources/app.asar/dist/renderer');
    const dev = desktopLayout({ appPath: '/src/overseer', packaged: false, execPath: '/usr/bin/electron' });
    assert.equal(dev.helper.args[0], '/src/overseer/dist/helper/main.mjs');
    assert.deepEqual(desktopStdioConnection(packaged, '/opt/Overseer/overseer', '/home/a/.config/Overseer'), {
      stdio_command: [
        '/opt/Overseer/overseer',
        '/opt/Overseer/resources/app.asar.unpacked/dist/cli/overseer.mjs',
        'mcp',
        '--data-dir',
        '/home/a/.config/Overseer',
      ],
      stdio_env: { ELECTRON_RUN_AS_NODE: '1' },
    });
  });

  it('reads its own flags and ignores Chromium switches', () => {
    assert.deepEqual(desktopFlags(['--no-sandbox', '--data-dir', '/d', '--port=0', '--hidden', '--enable-logging']), { dataDir: '/d', port: 0, hidden: true });
    assert.deepEqual(desktopFlags([]), { hidden: false });
    assert.throws(() => desktopFlags(['--port', 'x']), /not a port/);
    assert.throws(() => desktopFlags(['--port', '70000']), /not a port/);
    assert.throws(() => desktopFlags(['--data-dir']), /needs a value/);
  });

  it('shows the pending count and the brake state in the tray, with brakes that fit the state', () => {
    const idle = trayView({ pending: [], brake: 'running', helper: 'ready', shortcut: true });
    assert.equal(idle.icon, 'idle');
    assert.equal(idle.tooltip, 'Overseer: No approvals waiting');
    assert.deepEqual(commands(idle.items), { show: true, pause: true, stop: true, emergency_stop: true, quit: true });
    assert.ok(idle.items.some((i) => i.kind === 'command' && i.id === 'emergency_stop' && i.accelerator === EMERGENCY_SHORTCUT));

    const two = trayView({ pending: [pending('A1'), pending('A2')], brake: 'running', helper: 'ready', shortcut: false });
    assert.equal(two.icon, 'pending');
    assert.equal(two.tooltip, 'Overseer: 2 approvals waiting');
    assert.ok(two.items.some((i) => i.kind === 'command' && i.id === 'show' && i.label === 'Review approvals…'));
    assert.ok(!two.items.some((i) => i.kind === 'command' && i.accelerator !== undefined), 'no accelerator shown for a shortcut another program holds');

    const paused = trayView({ pending: [pending('A1')], brake: 'paused', helper: 'ready', shortcut: true });
    assert.equal(paused.icon, 'braked');
    assert.match(paused.tooltip, /^Overseer: Paused.* · 1 approval waiting$/);
    assert.deepEqual(commands(paused.items), { show: true, resume: true, stop: true, emergency_stop: true, quit: true });

    const stopped = trayView({ pending: [], brake: 'stopped', helper: 'ready', shortcut: true });
    assert.deepEqual(commands(stopped.items), { show: true, pause: false, resume: true, emergency_stop: true, quit: true });

    const emergency = trayView({ pending: [], brake: 'emergency', helper: 'stopped', shortcut: true });
    assert.deepEqual(commands(emergency.items), { show: true, pause: false, stop: false, rearm: true, quit: true });
    assert.ok(emergency.items.some((i) => i.kind === 'status' && i.label === 'Accessibility helper: stopped'));
    assert.match(emergency.tooltip, /EMERGENCY STOP/);
  });

  it('notifies of a new approval only while the window is out of view, and never shows a password', () => {
    assert.equal(approvalNotification([], [pending('A1')], true), undefined);
    assert.equal(approvalNotification([pending('A1')], [pending('A1')], false), undefined, 'nothing new');
    assert.equal(approvalNotification([pending('A1')], [], false), undefined, 'an answered card is no news');
    const note = approvalNotification(
      [pending('A1')],
      [pending('A1'), pending('A2', { action: 'invoke', risk_hints: ['Send'], target: { ...pending('x').target, name: 'Send' } })],
      false,
    );
    assert.deepEqual(note, { title: 'Approval needed (2 waiting)', body: 'claude wants to invoke “Send” in mail ⚠ Send', approval_id: 'A2' });
    const secret = approvalNotification([], [pending('P', { password: true, text: '••••', target: { ...pending('x').target, name: 'hunter2-label' } })], false);
    assert.equal(secret?.body, 'claude wants to set value a password field in mail');
  });

  it('follows the supervisor through UI events', () => {
    let s = followEvent({ pending: [], brake: 'running', helper: 'starting' }, 'snapshot', {
      pending: [pending('A1')],
      brake: 'paused',
      helper: { state: 'ready', restarts: 0 },
    });
    assert.deepEqual(s, { pending: [pending('A1')], brake: 'paused', helper: 'ready' });
    s = followEvent(s, 'pending_delta', { added: [pending('A2')], removed: [] });
    assert.deepEqual(
      s.pending.map((p) => p.approval_id),
      ['A1', 'A2'],
    );
    s = followEvent(s, 'pending_delta', { added: [], removed: ['A1', 'A2'] });
    s = followEvent(s, 'brake', 'emergency');
    s = followEvent(s, 'helper', { state: 'stopped', restarts: 0 });
    s = followEvent(s, 'receipt', { anything: true });
    assert.deepEqual(s, { pending: [], brake: 'emergency', helper: 'stopped' });
  });

  it('answers IPC only from the top frame of its own page, validated by the same hub as WebSocket', async () => {
    const calls: unknown[] = [];
    const handlers = new Proxy({} as UiHandlers, { get: (_t, name) => (params: unknown) => (calls.push([name, params]), Promise.resolve({ ok: true })) });
    const hub = new UiHub(handlers, () => {});
    const registered = new Map<string, (event: IpcInvokeEventLike, params: unknown) => Promise<IpcAnswer>>();
    const log: string[] = [];
    const unregister = registerUiIpc({ handle: (c, l) => registered.set(c, l), removeHandler: (c) => registered.delete(c) }, hub, APP_URL, (l) => log.push(l));
    assert.deepEqual(
      [...registered.keys()].sort(),
      Object.keys(UI_COMMANDS)
        .map((c) => `overseer:${c}`)
        .sort(),
    );
    const approve = registered.get('overseer:approve');
    assert.ok(approve);
    const top = { senderFrame: { url: APP_URL, parent: null } };
    assert.deepEqual(await approve(top, { approval_id: 'A1' }), { ok: true, result: { ok: true } });
    assert.deepEqual(calls, [['approve', { approval_id: 'A1' }]]);
    for (const event of [
      { senderFrame: { url: APP_URL, parent: {} } },
      { senderFrame: { url: 'https://evil.example/', parent: null } },
      { senderFrame: null },
    ]) {
      const answer: IpcAnswer = await approve(event, { approval_id: 'A1' });
      assert.equal(answer.ok ? 'ok' : answer.error.code, 'denied');
    }
    assert.equal(calls.length, 1, 'untrusted frames never reach a handler');
    assert.equal(log.length, 3);
    for (const bad of [{ approval_id: 1 }, { approval_id: 'A1', extra: true }, 'A1']) {
      const answer: IpcAnswer = await approve(top, bad);
      assert.equal(answer.ok ? 'ok' : answer.error.code, 'invalid_argument', JSON.stringify(bad));
    }
    assert.equal(calls.length, 1, 'invalid payloads never reach a handler');
    unregister();
    assert.equal(registered.size, 0);
  });

  it('relays only event frames to a live page', () => {
    const sent: [string, UiFrame][] = [];
    let destroyed = false;
    const relay = eventRelay(() => ({ isDestroyed: () => destroyed, send: (c, f) => sent.push([c, f]) }));
    relay.send({ type: 'event', event: 'brake', data: 'paused' });
    relay.send({ type: 'result', id: 1, result: {} });
    destroyed = true;
    relay.send({ type: 'event', event: 'brake', data: 'running' });
    assert.deepEqual(sent, [[UI_EVENT_CHANNEL, { type: 'event', event: 'brake', data: 'paused' }]]);
  });

  it('keeps the data folder’s token across launches and replaces one too short to be a token', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'overseer-token-'));
    try {
      const first = await loadOrCreateToken(dir);
      assert.ok(first.length >= 16);
      assert.equal(await loadOrCreateToken(dir), first);
      if (process.platform !== 'win32') assert.equal((await stat(join(dir, 'token'))).mode & 0o777, 0o600, 'readable by the user only');
      await writeFile(join(dir, 'token'), 'short\n');
      const replaced = await loadOrCreateToken(dir);
      assert.notEqual(replaced, 'short');
      assert.equal((await readFile(join(dir, 'token'), 'utf8')).trim(), replaced);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
