import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import dbus from 'dbus-next';
import { monitorsOfState } from './gnomeDisplays.js';
import { unwrap } from './portalBus.js';
import { portalDesktop } from './portalDesktop.js';
import { parseStreams } from './remoteDesktopPortal.js';
import { TOKEN_FILE, tokenFile } from './tokenFile.js';
import { xauthCookie } from './xwaylandClipboard.js';

const v = (signature: string, value: unknown): dbus.Variant => new dbus.Variant(signature, value);

describe('the portal answers, read', () => {
  it('unwraps nested variants of a{sv} results', () => {
    assert.deepEqual(unwrap({ uri: v('s', 'file:///x.png'), streams: v('a(ua{sv})', [[42, { size: v('(ii)', [1280, 800]) }]]) }), {
      uri: 'file:///x.png',
      streams: [[42, { size: [1280, 800] }]],
    });
  });

  it("reads Start's streams with their places, and skips malformed ones", () => {
    assert.deepEqual(
      parseStreams([
        [42, { position: [0, 0], size: [1280, 800], source_type: 1 }],
        [43, { position: [1280, 0], size: [1920, 1080] }],
        [44, { size: [0, 800] }],
        ['x', { size: [10, 10] }],
        [45, {}],
      ]),
      [
        { node: 42, x: 0, y: 0, width: 1280, height: 800 },
        { node: 43, x: 1280, y: 0, width: 1920, height: 1080 },
      ],
    );
    assert.deepEqual(parseStreams(undefined), []);
  });

  it("reads GNOME's monitors: the current mode's size, turned monitors swapped, logical places scaled", () => {
    const mode = (w: number, h: number, current: boolean): unknown[] => ['m', w, h, 60, 1, [1], { 'is-current': v('b', current) }];
    const physical = [
      [['DP-1', 'v', 'p', 's'], [mode(1920, 1080, false), mode(2560, 1440, true)], {}],
      [['HDMI-1', 'v', 'p', 's'], [mode(1920, 1080, true)], {}],
    ];
    const logical = [
      [0, 0, 2, 0, true, [['DP-1', 'v', 'p', 's']], {}],
      [1280, 0, 1, 1, false, [['HDMI-1', 'v', 'p', 's']], {}],
    ];
    assert.deepEqual(monitorsOfState([1, physical, logical, { 'layout-mode': v('u', 1) }]), [
      { name: 'DP-1', primary: true, scale: 2, x: 0, y: 0, width: 2560, height: 1440 },
      { name: 'HDMI-1', primary: false, scale: 1, x: 1280, y: 0, width: 1080, height: 1920 },
    ]);
  });
});

describe('the restore token file', () => {
  it('keeps the token 0600 in the data dir, reads it back, and forgets it', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'overseer-token-'));
    try {
      const store = tokenFile(dir, () => undefined);
      assert.equal(store.load(), undefined);
      store.save('0f3b8a52-6a1c-4c6e-9a4e-2d7f1e0b9c11');
      assert.equal(statSync(path.join(dir, TOKEN_FILE)).mode & 0o777, 0o600);
      assert.equal(tokenFile(dir, () => undefined).load(), '0f3b8a52-6a1c-4c6e-9a4e-2d7f1e0b9c11', 'a new helper finds it');
      store.save(undefined);
      assert.equal(store.load(), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is no token when the file holds something that is not one', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'overseer-token-'));
    try {
      const store = tokenFile(dir, () => undefined);
      store.save('x'.repeat(300));
      assert.equal(readFileSync(path.join(dir, TOKEN_FILE), 'utf8').length, 301);
      assert.equal(store.load(), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the token only in memory without a data dir', () => {
    const store = tokenFile(undefined, () => undefined);
    store.save('t');
    assert.equal(store.load(), 't');
  });
});

describe('the desktop behind the portals', () => {
  it('sends ten steps per wheel detent only to KDE Plasma 5, and verifies GNOME and Plasma 5 only', () => {
    const of = (env: NodeJS.ProcessEnv) => {
      const d = portalDesktop(env);
      return [d.kind, d.verified, d.stepsPerDetent, d.asksNoConsent, d.sharesXwaylandClipboard];
    };
    assert.deepEqual(of({ XDG_CURRENT_DESKTOP: 'ubuntu:GNOME' }), ['gnome', true, 1, false, true]);
    assert.deepEqual(of({ XDG_CURRENT_DESKTOP: 'KDE', KDE_SESSION_VERSION: '5' }), ['kde', true, 10, true, false]);
    assert.deepEqual(of({ XDG_CURRENT_DESKTOP: 'KDE' }), ['kde', true, 10, true, false]);
    assert.deepEqual(of({ XDG_CURRENT_DESKTOP: 'KDE', KDE_SESSION_VERSION: '6' }), ['kde', false, 1, false, false], "Plasma 6's portal was not measured");
    assert.deepEqual(of({ XDG_CURRENT_DESKTOP: 'sway' }), ['other', false, 1, false, false]);
    assert.deepEqual(of({}), ['other', false, 1, false, false]);
  });
});

describe("Xwayland's cookie", () => {
  /** One Xauthority entry: family, address, display number, name, data, each length-prefixed (big-endian). */
  const entry = (family: number, address: string, display: string, name: string, data: Buffer): Buffer => {
    const field = (b: Buffer): Buffer => Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
    return Buffer.concat([
      Buffer.from([family >> 8, family & 0xff]),
      field(Buffer.from(address)),
      field(Buffer.from(display)),
      field(Buffer.from(name)),
      field(data),
    ]);
  };
  const cookie = Buffer.from([0, 1, 2, 0xfe, 0xff, 0x80, 0x41, 0x0a]);

  it('takes the MIT-MAGIC-COOKIE-1 of the display (or of any display), bytes intact', () => {
    const file = Buffer.concat([
      entry(256, 'host', '3', 'XDM-AUTHORIZATION-1', Buffer.from('nope')),
      entry(256, 'host', '2', 'MIT-MAGIC-COOKIE-1', Buffer.from('other')),
      entry(256, 'host', '3', 'MIT-MAGIC-COOKIE-1', cookie),
    ]);
    assert.deepEqual(xauthCookie(file, '3'), { name: 'MIT-MAGIC-COOKIE-1', data: cookie.toString('latin1') });
    assert.equal(Buffer.from(xauthCookie(file, '3')?.data ?? '', 'latin1').equals(cookie), true);
    // mutter writes its cookie for no display number in particular
    assert.deepEqual(xauthCookie(entry(256, '', '', 'MIT-MAGIC-COOKIE-1', cookie), '7')?.name, 'MIT-MAGIC-COOKIE-1');
  });

  it('answers nothing for another display, an empty file or a truncated one', () => {
    const whole = entry(256, 'host', '3', 'MIT-MAGIC-COOKIE-1', cookie);
    assert.equal(xauthCookie(whole, '4'), undefined);
    assert.equal(xauthCookie(Buffer.alloc(0), '3'), undefined);
    assert.equal(xauthCookie(whole.subarray(0, whole.length - 3), '3'), undefined);
  });
});
