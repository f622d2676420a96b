// PortalBus against a real private dbus-daemon with a stand-in portal: an answer counts only when
// the portal sends it. Another client of the session bus can send a Response signal straight to
// the helper's connection (a unicast signal needs no match rule); it must never pass for the
// person's answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import dbus from 'dbus-next';
import { PORTAL, PortalBus, waitFor } from './portalBus.js';
import { startPrivateBus, type Bus, type PrivateBus } from '../../testing/privateBus.js';

const signal = (path: string, destination: string, code: number, uri: string): dbus.Message =>
  new dbus.Message({
    type: dbus.MessageType.SIGNAL,
    path,
    interface: 'org.freedesktop.portal.Request',
    member: 'Response',
    destination,
    signature: 'ua{sv}',
    body: [code, { uri: new dbus.Variant('s', uri) }],
  });

describe('portal requests on a private bus', () => {
  let privateBus: PrivateBus;
  let address: string;
  let portal: Bus;
  /** Each call the stand-in portal got: its handle token and where to answer. */
  const calls: Array<{ token: string; sender: string }> = [];

  before(async () => {
    privateBus = await startPrivateBus('overseer-portalbus-');
    address = privateBus.address;
    portal = await privateBus.connect();
    await portal.requestName(PORTAL.destination, 0);
    portal.on('message', (msg: dbus.Message) => {
      if (msg.type !== dbus.MessageType.METHOD_CALL || msg.interface !== 'org.freedesktop.portal.Screenshot') return;
      const options = msg.body[1] as Record<string, dbus.Variant>;
      calls.push({ token: String(options['handle_token']?.value), sender: msg.sender ?? '' });
      const reply = dbus.Message.newMethodReturn(msg, 'o', [`${PORTAL.path}/request/x/y`]);
      portal.send(reply);
    });
  });

  after(() => {
    portal?.disconnect();
    privateBus?.stop();
  });

  it("takes the portal's answer, and never another client's sent straight to it", async () => {
    const bus = await PortalBus.connect(address, 3000);
    const spoofer = await privateBus.connect();
    try {
      const pending = await bus.start(
        (token) => bus.portal('org.freedesktop.portal.Screenshot', 'Screenshot', 'sa{sv}', ['', { handle_token: new dbus.Variant('s', token) }], 3000),
        3000,
      );
      const call = calls.at(-1);
      assert.ok(call !== undefined);
      const requestPath = `${PORTAL.path}/request/${call.sender.slice(1).replace(/\./g, '_')}/${call.token}`;
      spoofer.send(signal(requestPath, call.sender, 0, 'file:///etc/passwd'));
      await assert.rejects(waitFor(pending.answer, 300), /no answer/, 'a spoofed answer is not an answer');
      portal.send(signal(requestPath, call.sender, 0, 'file:///tmp/shot.png'));
      const answer = await waitFor(pending.answer, 3000);
      assert.deepEqual(answer, { code: 0, results: { uri: 'file:///tmp/shot.png' } });
    } finally {
      spoofer.disconnect();
      bus.disconnect();
    }
  });
});
