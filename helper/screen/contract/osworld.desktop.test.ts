// The screen contract against the osworld_http screen backend, through the project's
// OSWorld-compatible server driving a private desktop, and what only that backend has.

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { OverseerError } from '../../../protocol/index.js';
import { osworldSetup } from './osworldLane.js';
import { screenContract } from './screenContract.js';

screenContract('screen contract: OSWorld over HTTP (GTK canvas on a private desktop)', osworldSetup, (lane) => {
  it('pastes text that is not ASCII through the VM clipboard, whole', async () => {
    const { screen, events, canvas: c } = lane();
    await screen.click(c.x + 20, c.y + 20, 'left', 1);
    await events.until((e) => e.some((v) => v.kind === 'button' && v.action === 'up'), 'focus click');
    await screen.typeText('héllo – 日本');
    const typed = await events.until((e) => e.some((v) => v.kind === 'text'), 'pasted text');
    assert.equal(typed.flatMap((e) => (e.kind === 'text' ? [e.text] : [])).join(''), 'héllo – 日本');
  });

  it('refuses input_unavailable clipboard_lost when the clipboard dies with the copying process, pasting nothing; then pastes again', async () => {
    const { screen, events, server, canvas: c } = lane();
    await screen.click(c.x + 30, c.y + 30, 'left', 1);
    await events.until((e) => e.some((v) => v.kind === 'button' && v.action === 'up'), 'focus click');
    server.setClipboard('lost_on_exit');
    try {
      await assert.rejects(screen.typeText('Straße Ёжик 東京'), (e: unknown) => {
        assert.ok(e instanceof OverseerError, String(e));
        assert.deepEqual([e.code, e.info.data?.['reason'], e.info.data?.['connection']], ['input_unavailable', 'clipboard_lost', 'vm1']);
        assert.match(String(e.info.data?.['hint']), /xclip/);
        return true;
      });
    } finally {
      server.setClipboard('kept');
    }
    await assert.rejects(
      events.until((e) => e.some((v) => v.kind === 'text' || v.kind === 'key'), 'a key or text after the refused paste', 1000),
      /timed out/,
      'nothing was pasted: no Ctrl+V was sent',
    );
    await screen.typeText('Straße Ёжик 東京');
    const typed = await events.until((e) => e.some((v) => v.kind === 'text'), 'pasted text');
    assert.equal(typed.flatMap((e) => (e.kind === 'text' ? [e.text] : [])).join(''), 'Straße Ёжик 東京');
  });

  it('sends one /execute per input and names the connection when the server refuses', async () => {
    const { screen, server, canvas: c } = lane();
    const before = server.count('POST /execute');
    await screen.move(c.x + 5, c.y + 5);
    assert.equal(server.count('POST /execute'), before + 1);
    server.setMode('error500');
    try {
      await assert.rejects(
        screen.move(c.x + 6, c.y + 6),
        (e: unknown) =>
          e instanceof OverseerError && e.code === 'input_unavailable' && e.info.data?.['reason'] === 'server_error' && e.info.data['connection'] === 'vm1',
      );
      await assert.rejects(
        screen.capture(),
        (e: unknown) => e instanceof OverseerError && e.code === 'capture_unavailable' && e.info.data?.['reason'] === 'server_error',
      );
    } finally {
      server.setMode('normal');
    }
    assert.equal(server.count('POST /execute'), before + 2, 'the refused move was sent once, never again');
  });
});
