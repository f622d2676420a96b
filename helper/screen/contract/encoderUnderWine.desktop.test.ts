// The helper as the Windows build of Node runs it (under Wine here, bundled with its encoder worker
// beside it as e2e/windows/lanes.ts bundles both): screen captures through the Win32 backend are
// encoded on the worker thread. Node under Wine cannot open a process's stdio as streams, so a
// worker that would pipe its stdout or stderr to the helper's cannot even start there.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startPrivateDesktop } from '../../../desktop/privateDesktop.js';
import { prepareWine, wineUnavailable } from '../../../e2e/windows/lanes.js';
import { spawnHelper } from '../../../main/core/helperLink/helperProcess.js';
import type { HelperParams } from '../../../protocol/index.js';

const why = process.platform === 'win32' ? 'runs the Windows build of Node under Wine, on Linux' : wineUnavailable();

describe('the helper in the Windows build of Node encodes screen captures on its worker', () => {
  it('captures the screen through Win32 and encodes it on the bundled worker, for several agents at once', { skip: why }, async () => {
    const desktop = await startPrivateDesktop({ width: 1280, height: 800 });
    const lane = prepareWine(desktop.env);
    const log = join(desktop.dir, 'encoder-helper.log');
    const helper = spawnHelper({ ...process.env, ...desktop.env }, lane.helperCommand(log, 'win32'));
    try {
      assert.equal((await helper.call('hello', {}, { timeoutMs: 120_000 })).backend, 'win32');
      const shots = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          helper.call('screen_capture', { format: 'jpeg', quality: 90, $scope: { agent: `agent-${i % 2}` } } as HelperParams<'screen_capture'>, {
            timeoutMs: 120_000,
          }),
        ),
      );
      for (const shot of shots)
        assert.deepEqual([shot.image.mime, shot.image.width, shot.image.height, shot.capture_path], ['image/jpeg', 1280, 800, 'win32:BitBlt']);
      const png = await helper.call('screen_capture', { max_width: 200, max_height: 200 }, { timeoutMs: 60_000 });
      assert.deepEqual([png.image.width, png.image.height], [200, 125]);
      const said = readFileSync(log, 'utf8');
      assert.match(said, /\[screen\] encoder worker ready/, said.slice(-3000));
      assert.doesNotMatch(said, /encoding on the helper's own thread/);
    } finally {
      await helper.close();
      lane.stop();
      await desktop.stop();
    }
  });
});
