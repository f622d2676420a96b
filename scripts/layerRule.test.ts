import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkImport, layerOf, layerTable } from './layerRule.mjs';

const root = new URL('..', import.meta.url).pathname;

describe('import layers', () => {
  it('gives every code file of the repository a layer', () => {
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts', '*.tsx', '*.mjs', '*.mts'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    assert.ok(files.length > 100);
    assert.deepEqual(
      files.filter((f) => layerOf(f) === undefined),
      [],
    );
  });

  it('refuses a wrong-way import and names the route', () => {
    const helperToMain = checkImport('helper/core/read.ts', '../../main/core/supervisor.js');
    assert.match(helperToMain ?? '', /helper\/core\/ may not import main\/core\/supervisor\.js.*over RPC/);
    const mainToHelper = checkImport('main/core/supervisor.ts', '../../helper/core/act.js');
    assert.match(mainToHelper ?? '', /only over RPC, through its client main\/core\/helperLink\/helperProcess\.ts/);
    assert.match(checkImport('main/testing/fixtureDriver.ts', '../../helper/backends/atspi/dbus.js') ?? '', /helper\/backends\/atspi/);
    assert.match(checkImport('helper/backends/atspi/atspiBackend.ts', '../windows/uia/uiaBackend.js') ?? '', /knows no other backend/);
    assert.match(checkImport('protocol/tools.ts', '../main/core/paths.js') ?? '', /imports nothing of the project/);
  });

  it('lets a test file import what its folder lists for tests, and nothing more', () => {
    assert.equal(checkImport('helper/backends/atspi/freshness.desktop.test.ts', '../../contract/atspiLane.js'), undefined);
    assert.match(checkImport('helper/backends/atspi/freshness.ts', '../../contract/atspiLane.js') ?? '', /may not import helper\/contract/);
    assert.match(checkImport('main/core/supervisor.desktop.test.ts', '../electron/desktopCore.js') ?? '', /may not import main\/electron/);
  });

  it('keeps test code out of the product folders above it, and lets their tests import it', () => {
    assert.match(
      checkImport('helper/main.ts', './testing/fakeBackend.js') ?? '',
      /helper\/ may not import helper\/testing\/fakeBackend\.js \(layer helper\/testing\/\)\. Only tests/,
    );
    assert.match(checkImport('helper/core/act.ts', '../testing/fakeBackend.js') ?? '', /may not import helper\/testing/);
    assert.equal(checkImport('helper/core/act.test.ts', '../testing/fakeBackend.js'), undefined);
    assert.equal(checkImport('helper/testing/win32ScreenDriver.ts', './win32TestWindow.js'), undefined);
    assert.equal(checkImport('helper/main.ts', './core/backend.js'), undefined);
  });

  it('checks packages, Node built-ins included', () => {
    assert.match(checkImport('main/core/supervisor.ts', 'electron') ?? '', /may not import the package electron/);
    assert.match(checkImport('renderer/features/shell/Shell.tsx', 'node:fs') ?? '', /Node built-in node:fs/);
    assert.match(checkImport('protocol/errors.ts', 'fs') ?? '', /Node built-in fs/);
    assert.equal(checkImport('main/core/mcp/mcpSession.ts', '@modelcontextprotocol/sdk/server/mcp.js'), undefined);
    assert.equal(checkImport('main/electron/main.ts', 'electron'), undefined);
  });

  it('refuses an import that leaves the repository, and a file in no layer', () => {
    assert.match(checkImport('main/core/supervisor.ts', '../../../shared/SPEC.md') ?? '', /leaves the repository/);
    assert.match(checkImport('elsewhere/x.ts', './y.js') ?? '', /is in no layer/);
  });
});

describe('the layer table in docs/architecture.md', () => {
  it('is the table scripts/layers.mjs enforces', () => {
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    assert.ok(doc.includes(layerTable()), 'regenerate it: node -e "import(\'./scripts/layerRule.mjs\').then(m => console.log(m.layerTable()))"');
  });
});
