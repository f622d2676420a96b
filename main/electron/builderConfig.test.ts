import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import { DebugLogger, log } from 'builder-util';
import { REPO_ROOT } from '../core/runtime/paths.js';
import { desktopLayout } from './desktopLayout.js';

const load = () => getConfig(REPO_ROOT, 'electron-builder.yml', null);

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(file: string): [number, number] {
  const b = readFileSync(file);
  assert.equal(b.subarray(1, 4).toString('latin1'), 'PNG', `${file} is a PNG`);
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

describe('electron-builder.yml', () => {
  // electron-builder logs to stdout, which node's test runner reads as its own protocol: a line of
  // its output arriving mid-frame made the runner fail with "Unable to deserialize cloned data".
  const logger = log as unknown as { stream: NodeJS.WritableStream };
  const stdout = logger.stream;
  before(() => (logger.stream = process.stderr));
  after(() => (logger.stream = stdout));

  it('is valid against electron-builder’s own configuration schema', async () => {
    await validateConfiguration(await load(), new DebugLogger(false));
  });

  it('is rejected by the same validation once broken (the check can fail)', async () => {
    const broken = await load();
    (broken as Record<string, unknown>)['nsis'] = { ...(broken.nsis ?? {}), oneClik: false };
    await assert.rejects(validateConfiguration(broken, new DebugLogger(false)), /configuration\.nsis/);
  });

  it('builds Windows NSIS and Linux AppImage and deb for x64, with the app’s id, name and icons', async () => {
    const c = await load();
    assert.equal(c.appId, 'dev.overseer.desktop');
    assert.equal(c.productName, 'Overseer');
    const targets = (t: unknown) => (t as { target: string; arch: string[] }[]).map((x) => `${x.target}:${x.arch.join(',')}`);
    assert.deepEqual(targets(c.win?.target), ['nsis:x64']);
    assert.deepEqual(targets(c.linux?.target), ['AppImage:x64', 'deb:x64']);
    for (const icon of [c.win?.icon, c.linux?.icon]) {
      assert.ok(typeof icon === 'string' && existsSync(join(REPO_ROOT, icon)), String(icon));
      const [w, h] = pngSize(join(REPO_ROOT, icon));
      assert.ok(w >= 256 && w === h, 'installers need a square icon of at least 256 px');
    }
    for (const icon of Object.values(desktopLayout({ appPath: REPO_ROOT, packaged: false, execPath: '' }).icons)) assert.ok(existsSync(icon), icon);
  });

  it('packs what the app runs: the bundles, the helper and CLI unpacked for Electron’s Node, native modules unpacked', async () => {
    const c = await load();
    // electron-builder normalizes `files` into file sets.
    const files = (c.files as { filter: string[] }[]).flatMap((set) => set.filter);
    const unpacked = c.asarUnpack as string[];
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { main: string };
    assert.equal(pkg.main, 'dist/electron/main.mjs');
    for (const dir of ['dist/electron/**', 'dist/helper/**', 'dist/cli/**', 'dist/renderer/**', 'assets/**', 'package.json'])
      assert.ok(files.includes(dir), `files has ${dir}`);
    for (const dir of ['dist/helper/**', 'dist/cli/**', 'node_modules/koffi/**', 'node_modules/@koromix/**'])
      assert.ok(unpacked.includes(dir), `asarUnpack has ${dir}`);
    for (const dir of ['node_modules/koffi/**', 'node_modules/@koromix/**']) assert.ok(files.includes(dir), `files has ${dir}`);
    // The packaged layout runs exactly what asarUnpack leaves outside the archive.
    const packaged = desktopLayout({ appPath: '/app/resources/app.asar', packaged: true, execPath: '/app/overseer' });
    assert.match(packaged.helper.args[0] ?? '', /^\/app\/resources\/app\.asar\.unpacked\/dist\/helper\//);
    assert.match(packaged.cli, /^\/app\/resources\/app\.asar\.unpacked\/dist\/cli\//);
    // The helper's screen encoder worker sits beside the helper's bundle, where the helper looks for it (helper/screen/encoderPool.ts).
    for (const bundle of [
      pkg.main,
      'dist/electron/preload.cjs',
      'dist/helper/main.mjs',
      'dist/helper/encodeWorker.mjs',
      'dist/cli/overseer.mjs',
      'dist/renderer/index.html',
    ])
      assert.ok(existsSync(join(REPO_ROOT, bundle)), `${bundle} is built by npm run build`);
  });
});
