// The RemoteDesktop restore token across helper starts, against a stand-in RemoteDesktop version 2
// portal on a real private dbus-daemon (GNOME 43's portal is version 1 and keeps nothing, so no
// desktop here can show it; docs/wayland.md#consent). The stand-in does what the portal
// documentation says a version 2 portal does: a Start without a valid token shows the dialog, one
// with a valid token does not; every grant with persist_mode 2 hands out a new token and retires
// the one used. Each "helper start" is a new bus connection and a new RemoteDesktopPortal over the
// same data dir, as the helper makes them.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import dbus from 'dbus-next';
import { PORTAL, PortalBus } from './portalBus.js';
import { startPrivateBus, type Bus, type PrivateBus } from '../../testing/privateBus.js';
import { RemoteDesktopPortal } from './remoteDesktopPortal.js';
import { TOKEN_FILE, tokenFile } from './tokenFile.js';

const v = (signature: string, value: unknown): dbus.Variant => new dbus.Variant(signature, value);

/** A RemoteDesktop version 2 portal: sessions, its dialog (answered by the test) and its restore tokens. */
class StandInPortal {
  /** What each SelectDevices asked for, in order. */
  readonly selections: Array<{ persist: number | undefined; token: string | undefined }> = [];
  /** How many times the dialog was shown. */
  dialogs = 0;
  /** Tokens the portal would honour; revoking one is what the person does in the desktop's settings. */
  readonly valid = new Set<string>();
  private issued = 0;
  private readonly sessions = new Map<string, { persist?: number | undefined; token?: string | undefined }>();
  private answerDialog: ((grant: boolean) => void) | undefined;

  constructor(private readonly bus: Bus) {
    bus.on('message', (msg: dbus.Message) => this.onMessage(msg));
  }

  /** The person answers the open dialog. */
  async answer(grant: boolean): Promise<void> {
    for (let i = 0; this.answerDialog === undefined && i < 300; i++) await sleep(10);
    assert.ok(this.answerDialog !== undefined, 'a dialog is open');
    const answer = this.answerDialog;
    this.answerDialog = undefined;
    answer(grant);
  }

  private reply(msg: dbus.Message, signature = '', body: unknown[] = []): void {
    this.send(dbus.Message.newMethodReturn(msg, signature, body));
  }

  /** Sends unless the test already closed the portal's connection (a helper's last Close may come after). */
  private send(msg: dbus.Message): void {
    try {
      this.bus.send(msg);
    } catch {
      // closed
    }
  }

  private error(msg: dbus.Message, errorName: string, text: string): void {
    const reply = { type: dbus.MessageType.ERROR, replySerial: msg.serial, destination: msg.sender, errorName, signature: 's', body: [text] };
    this.send(new dbus.Message(reply as unknown as ConstructorParameters<typeof dbus.Message>[0])); // the typings take replySerial for a string
  }

  /** The request object of a call: its path is the caller's to know in advance. */
  private requestPath(msg: dbus.Message, options: Record<string, dbus.Variant>): string {
    const sender = (msg.sender ?? '').slice(1).replace(/\./g, '_');
    return `${PORTAL.path}/request/${sender}/${String(options['handle_token']?.value)}`;
  }

  private response(request: string, code: number, results: Record<string, dbus.Variant>): void {
    this.send(
      new dbus.Message({
        type: dbus.MessageType.SIGNAL,
        path: request,
        interface: 'org.freedesktop.portal.Request',
        member: 'Response',
        signature: 'ua{sv}',
        body: [code, results],
      }),
    );
  }

  /** Returns the request object, then answers on it at once. */
  private respond(msg: dbus.Message, options: Record<string, dbus.Variant>, code: number, results: Record<string, dbus.Variant>): void {
    const request = this.requestPath(msg, options);
    this.reply(msg, 'o', [request]);
    this.response(request, code, results);
  }

  private onMessage(msg: dbus.Message): void {
    if (msg.type !== dbus.MessageType.METHOD_CALL) return;
    const key = `${msg.interface ?? ''}.${msg.member ?? ''}`;
    if (key === 'org.freedesktop.DBus.Properties.Get') {
      const [iface, name] = msg.body as [string, string];
      const value = iface === 'org.freedesktop.portal.RemoteDesktop' ? { version: v('u', 2), AvailableDeviceTypes: v('u', 3) }[name] : undefined;
      if (value === undefined) this.error(msg, 'org.freedesktop.DBus.Error.InvalidArgs', `no ${iface}.${name}`);
      else this.reply(msg, 'v', [value]);
    } else if (key === 'org.freedesktop.portal.RemoteDesktop.CreateSession') {
      const [options] = msg.body as [Record<string, dbus.Variant>];
      const sender = (msg.sender ?? '').slice(1).replace(/\./g, '_');
      const session = `${PORTAL.path}/session/${sender}/${String(options['session_handle_token']?.value)}`;
      this.sessions.set(session, {});
      this.respond(msg, options, 0, { session_handle: v('s', session) });
    } else if (key === 'org.freedesktop.portal.RemoteDesktop.SelectDevices') {
      const [session, options] = msg.body as [string, Record<string, dbus.Variant>];
      const chosen = { persist: options['persist_mode']?.value as number | undefined, token: options['restore_token']?.value as string | undefined };
      this.selections.push(chosen);
      this.sessions.set(session, chosen);
      this.respond(msg, options, 0, {});
    } else if (key === 'org.freedesktop.portal.ScreenCast.SelectSources') {
      const [, options] = msg.body as [string, Record<string, dbus.Variant>];
      this.respond(msg, options, 0, {});
    } else if (key === 'org.freedesktop.portal.RemoteDesktop.Start') {
      const [session, , options] = msg.body as [string, string, Record<string, dbus.Variant>];
      const chosen = this.sessions.get(session) ?? {};
      const request = this.requestPath(msg, options);
      this.reply(msg, 'o', [request]);
      const grant = (granted: boolean): void => {
        if (!granted) return this.response(request, 1, {});
        const results: Record<string, dbus.Variant> = {
          devices: v('u', 3),
          streams: v('a(ua{sv})', [[42, { position: v('(ii)', [0, 0]), size: v('(ii)', [1280, 800]) }]]),
        };
        if (chosen.persist === 2) {
          // A token is good for one restore: the portal hands out a new one with every grant.
          if (chosen.token !== undefined) this.valid.delete(chosen.token);
          const token = `token-${++this.issued}`;
          this.valid.add(token);
          results['restore_token'] = v('s', token);
        }
        this.response(request, 0, results);
      };
      if (chosen.token !== undefined && this.valid.has(chosen.token)) grant(true);
      else {
        // The dialog: the Response waits for the person.
        this.dialogs++;
        this.answerDialog = grant;
      }
    } else if (key.startsWith('org.freedesktop.portal.RemoteDesktop.Notify') || key === 'org.freedesktop.portal.Session.Close') this.reply(msg);
    else this.error(msg, 'org.freedesktop.DBus.Error.UnknownMethod', key);
  }
}

describe('the RemoteDesktop restore token across helper starts (a stand-in version 2 portal)', () => {
  let privateBus: PrivateBus;
  let dataDir: string;
  let address: string;
  let portalConn: Bus;
  let portal: StandInPortal;

  before(async () => {
    privateBus = await startPrivateBus('overseer-rdtoken-');
    dataDir = path.join(privateBus.dir, 'data');
    address = privateBus.address;
    portalConn = await privateBus.connect();
    await portalConn.requestName(PORTAL.destination, 0);
    portal = new StandInPortal(portalConn);
  });

  after(async () => {
    await sleep(100); // the helpers' last Session.Close calls
    portalConn?.disconnect();
    privateBus?.stop();
  });

  const logs: string[] = [];
  /** One helper start: its own bus connection and portal client over the shared data dir. */
  const helperStart = async (): Promise<{ rd: RemoteDesktopPortal; stop: () => void }> => {
    const bus = await PortalBus.connect(address, 3000);
    const rd = new RemoteDesktopPortal(
      bus,
      tokenFile(dataDir, (l) => logs.push(l)),
      (l) => logs.push(l),
    );
    return {
      rd,
      stop: () => {
        rd.close();
        bus.disconnect();
      },
    };
  };
  const kept = (): string | undefined => (existsSync(path.join(dataDir, TOKEN_FILE)) ? readFileSync(path.join(dataDir, TOKEN_FILE), 'utf8').trim() : undefined);

  it('asks once, keeps the token 0600 in the data dir, and the next helper starts with no dialog', async () => {
    const first = await helperStart();
    const [live] = await Promise.all([first.rd.session(5000), portal.answer(true)]);
    assert.deepEqual(live.streams, [{ node: 42, x: 0, y: 0, width: 1280, height: 800 }]);
    assert.equal(portal.dialogs, 1);
    assert.deepEqual(portal.selections.at(-1), { persist: 2, token: undefined }, 'asked to persist, with nothing to restore');
    assert.equal(kept(), 'token-1');
    assert.equal(statSync(path.join(dataDir, TOKEN_FILE)).mode & 0o777, 0o600);
    first.stop();

    const second = await helperStart();
    await second.rd.session(5000);
    assert.equal(portal.dialogs, 1, 'no dialog the second time');
    assert.deepEqual(portal.selections.at(-1), { persist: 2, token: 'token-1' });
    assert.equal(kept(), 'token-2', 'the new token replaced the used one');
    assert.equal(second.rd.state(), 'granted');
    second.stop();
  });

  it('asks again after the person forgot the consent in Settings, and keeps the new token', async () => {
    const start = await helperStart();
    start.rd.forget();
    assert.equal(kept(), undefined, 'forgetting removes the token file');
    const dialogs = portal.dialogs;
    await Promise.all([start.rd.session(5000), portal.answer(true)]);
    assert.equal(portal.dialogs, dialogs + 1);
    assert.deepEqual(portal.selections.at(-1), { persist: 2, token: undefined });
    assert.equal(kept(), 'token-3');
    start.stop();
  });

  it('asks again when the desktop revoked the token; and a refusal sticks for that helper, with no second dialog', async () => {
    portal.valid.clear(); // the person revoked it in the desktop's own settings
    const start = await helperStart();
    const dialogs = portal.dialogs;
    await Promise.all([start.rd.session(5000), portal.answer(true)]);
    assert.equal(portal.dialogs, dialogs + 1, 'a revoked token brings the dialog back');
    assert.deepEqual(portal.selections.at(-1), { persist: 2, token: 'token-3' });
    assert.equal(kept(), 'token-4');
    start.stop();

    portal.valid.clear();
    const refusing = await helperStart();
    const [refused] = await Promise.all([
      refusing.rd.session(5000).then(
        () => undefined,
        (e: unknown) => e,
      ),
      portal.answer(false),
    ]);
    assert.match(String(refused), /did not allow remote interaction/);
    assert.equal(refusing.rd.state(), 'refused');
    await assert.rejects(refusing.rd.session(5000), /did not allow/, 'refused at once, no second dialog');
    assert.equal(portal.dialogs, dialogs + 2);
    refusing.stop();
  });
});
