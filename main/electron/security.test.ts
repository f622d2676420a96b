import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UI_COMMANDS } from '../../protocol/index.js';
import {
  APP_URL,
  DESKTOP_CSP,
  withCspMeta,
  IPC_CHANNELS,
  isAllowedNavigation,
  isTrustedSender,
  permissionRequestHandler,
  webPreferences,
  windowOpenHandler,
} from './security.js';

const APP = APP_URL;

describe("the desktop shell's security decisions", () => {
  it('isolates and sandboxes the page, with no Node and no webviews', () => {
    const p = webPreferences('/opt/Overseer/preload.js');
    assert.equal(p.contextIsolation, true);
    assert.equal(p.sandbox, true);
    assert.equal(p.nodeIntegration, false);
    assert.equal(p.nodeIntegrationInWorker, false);
    assert.equal(p.nodeIntegrationInSubFrames, false);
    assert.equal(p.webSecurity, true);
    assert.equal(p.allowRunningInsecureContent, false);
    assert.equal(p.webviewTag, false);
    assert.equal(p.preload, '/opt/Overseer/preload.js');
  });

  it('has a CSP that allows only its own files and no network', () => {
    const directives = new Map(
      DESKTOP_CSP.split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k, v.join(' ')]),
    );
    assert.equal(directives.get('default-src'), "'none'");
    assert.equal(directives.get('script-src'), "'self'");
    assert.equal(directives.get('connect-src'), "'none'");
    assert.equal(directives.get('object-src'), "'none'");
    assert.ok(!DESKTOP_CSP.includes('unsafe-inline') && !DESKTOP_CSP.includes('unsafe-eval'));
  });

  it('denies every navigation but to its own page, and every window.open', () => {
    assert.equal(isAllowedNavigation(APP, APP), true);
    for (const url of [
      'https://example.com/',
      'file:///etc/passwd',
      'overseer://app/other.html',
      'overseer://elsewhere/index.html',
      'file:///opt/Overseer/resources/app/dist/renderer/index.html',
      'javascript:alert(1)',
      'not a url',
    ])
      assert.equal(isAllowedNavigation(url, APP), false, url);
    assert.deepEqual(windowOpenHandler({ url: 'https://example.com' } as never), { action: 'deny' });
  });

  it('denies every permission request', () => {
    let granted: boolean | undefined;
    for (const p of ['media', 'notifications', 'geolocation', 'clipboard-read']) {
      permissionRequestHandler(undefined, p, (g) => (granted = g));
      assert.equal(granted, false, p);
    }
  });

  it('trusts IPC only from the top frame of its own page', () => {
    assert.equal(isTrustedSender({ url: APP, top: true }, APP), true);
    assert.equal(isTrustedSender({ url: APP, top: false }, APP), false);
    assert.equal(isTrustedSender({ url: 'https://evil.example/', top: true }, APP), false);
    assert.equal(isTrustedSender(null, APP), false);
  });

  it('puts the CSP in the page itself too', () => {
    const html = withCspMeta('<!doctype html>\n<html><head>\n<meta charset="utf-8" /></head><body></body></html>');
    assert.match(html, /<head>\n {4}<meta http-equiv="Content-Security-Policy" content="default-src 'none'; [^"]*connect-src 'none'[^"]*" \/>/);
    assert.equal((html.match(/Content-Security-Policy/g) ?? []).length, 1);
  });

  it('derives one IPC channel per UI command from the table', () => {
    assert.deepEqual(Object.keys(IPC_CHANNELS).sort(), Object.keys(UI_COMMANDS).sort());
  });
});
