// The person's hand on the private GNOME session: pointer and keys through mutter's own
// remote-desktop API (org.gnome.Mutter.RemoteDesktop), which any client of the session bus may use
// on GNOME 43 without a dialog. Tests use it to do what the person does (leave the overview, answer
// a consent dialog the shell draws); the product never uses it: it goes through the portals, which
// ask the person (docs/wayland.md#test-session).

import { setTimeout as sleep } from 'node:timers/promises';
import { Variant, type MessageBus } from 'dbus-next';
import { connectBus, dbusCall } from './dbus.js';

const RD = 'org.gnome.Mutter.RemoteDesktop';
const SC = 'org.gnome.Mutter.ScreenCast';
const BTN_LEFT = 0x110;

export class GnomeHand {
  private constructor(
    private readonly bus: MessageBus,
    private readonly session: string,
    private readonly stream: string,
  ) {}

  /** A remote-desktop session recording the primary monitor (absolute pointer motion needs its stream). */
  static async open(busAddress: string): Promise<GnomeHand> {
    const bus = await connectBus(busAddress, 10_000);
    const call = (dest: string, path: string, iface: string, member: string, signature = '', body: unknown[] = []): Promise<unknown[]> =>
      dbusCall(bus, dest, path, iface, member, { signature, body, timeoutMs: 10_000 });
    try {
      const [session] = (await call(RD, '/org/gnome/Mutter/RemoteDesktop', RD, 'CreateSession')) as [string];
      const [id] = (await call(RD, session, 'org.freedesktop.DBus.Properties', 'Get', 'ss', [`${RD}.Session`, 'SessionId'])) as [Variant];
      const [cast] = (await call(SC, '/org/gnome/Mutter/ScreenCast', SC, 'CreateSession', 'a{sv}', [
        { 'remote-desktop-session-id': new Variant('s', id.value) },
      ])) as [string];
      const [stream] = (await call(SC, cast, `${SC}.Session`, 'RecordMonitor', 'sa{sv}', ['', {}])) as [string];
      await call(RD, session, `${RD}.Session`, 'Start');
      const hand = new GnomeHand(bus, session, stream);
      // The session's devices are made on first use; what comes meanwhile is dropped.
      await hand.notify('NotifyPointerMotionRelative', 'dd', [0, 0]);
      await hand.notify('NotifyKeyboardKeysym', 'ub', [0xffe1, true]);
      await hand.notify('NotifyKeyboardKeysym', 'ub', [0xffe1, false]);
      await sleep(250);
      return hand;
    } catch (error) {
      bus.disconnect();
      throw error;
    }
  }

  private async notify(member: string, signature: string, body: unknown[]): Promise<void> {
    await dbusCall(this.bus, RD, this.session, `${RD}.Session`, member, { signature, body, timeoutMs: 5000 });
  }

  /** Presses and releases a key by its keysym. */
  async key(keysym: number): Promise<void> {
    await this.notify('NotifyKeyboardKeysym', 'ub', [keysym, true]);
    await this.notify('NotifyKeyboardKeysym', 'ub', [keysym, false]);
  }

  /** Moves to x,y (screen pixels of the primary monitor), waits as a hand would, and clicks. */
  async click(x: number, y: number): Promise<void> {
    await this.notify('NotifyPointerMotionAbsolute', 'sdd', [this.stream, x, y]);
    await sleep(150);
    await this.notify('NotifyPointerButton', 'ib', [BTN_LEFT, true]);
    await sleep(30);
    await this.notify('NotifyPointerButton', 'ib', [BTN_LEFT, false]);
  }

  async close(): Promise<void> {
    try {
      await this.notify('Stop', '', []);
    } finally {
      this.bus.disconnect();
    }
  }
}
