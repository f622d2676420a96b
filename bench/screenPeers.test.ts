import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodePng } from '../helper/screen/image/png.js';
import { leftClickAt } from './canvasEvents.js';
import { executable, missingPeer, pngSize } from './screenPeers.js';

describe('the screen bench’s peers', () => {
  it('names the package of the first missing executable, and nothing when all are there', () => {
    const needs = [
      { executable: 'sh', package: 'dash' },
      { executable: 'no-such-tool-here', package: 'no-such-package' },
    ];
    assert.equal(missingPeer('tool', needs, '/usr/bin:/bin'), 'peer tool not installed: no-such-package');
    assert.equal(missingPeer('sh', needs.slice(0, 1), '/usr/bin:/bin'), null);
    assert.equal(missingPeer('sh', needs.slice(0, 1), '/nowhere'), 'peer sh not installed: dash');
    assert.equal(executable('/no/such/file'), null);
  });

  it('reads a PNG’s size from its header and refuses what is no PNG', () => {
    const png = encodePng({ width: 3, height: 2, channels: 3, data: new Uint8Array(18) });
    assert.deepEqual(pngSize(png), { width: 3, height: 2 });
    assert.equal(pngSize(Buffer.from('convert: unable to open image')), null);
    assert.equal(pngSize(png.subarray(0, 20)), null);
  });

  it('counts a click only when press and release of button 1 are both at the aimed pixel', () => {
    const at = (ev: string, x: number, button = 1) => ({ ev, button, x, y: 7 });
    assert.equal(leftClickAt([at('press', 5), at('release', 5)], 5, 7), true);
    assert.equal(leftClickAt([at('press', 5), at('release', 6)], 5, 7), false);
    assert.equal(leftClickAt([at('press', 5, 3), at('release', 5, 3)], 5, 7), false);
    assert.equal(leftClickAt([at('press', 5)], 5, 7), false);
  });
});
