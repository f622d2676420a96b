import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { LAYERS, allowGraph, checkImport, layerCycles, layerOf, layerTable } from './layerRule.mjs';

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

/** The folders of the supervisor core, and what each may import among them. */
const inCore = (folder: string): boolean => folder === 'main/core' || folder.startsWith('main/core/');

/** Tracked TypeScript files of the repository, repository-relative. */
function codeFiles(): string[] {
  return execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts', '*.tsx'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('the allowlist among folders', () => {
  it('has no loop among the folders of main/core: its root composes them, and each imports only folders below it', () => {
    const core = new Map([...allowGraph()].filter(([folder]) => inCore(folder)).map(([folder, to]) => [folder, to.filter(inCore)] as const));
    assert.ok(core.size >= 12, `only ${core.size} folders of main/core have a row`);
    assert.ok(core.get('main/core')?.includes('main/core/server'), 'the root may import every folder it composes');
    assert.deepEqual(layerCycles(core), []);
  });

  it('names every loop of folders that list each other', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    assert.deepEqual(layerCycles(graph), ['a → b → c → a']);
    assert.deepEqual(
      layerCycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
      [],
    );
  });

  it('lets each folder of main/core import no more of the core than its own files do', () => {
    const used = new Map<string, Set<string>>();
    for (const file of codeFiles().filter((f) => inCore(layerOf(f)?.folder ?? '') && !/\.test\.tsx?$/.test(f))) {
      const from = layerOf(file)?.folder ?? '';
      for (const m of readFileSync(join(root, file), 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
        const to = layerOf(join(dirname(file), m[1] ?? ''))?.folder;
        if (to !== undefined && to !== from) used.set(from, (used.get(from) ?? new Set()).add(to));
      }
    }
    const unused = LAYERS.filter((l) => inCore(l.folder) && l.folder !== 'main/core').flatMap((l) =>
      l.may
        .filter((entry) => inCore(entry) && entry !== l.folder && !used.get(l.folder)?.has(entry))
        .map((entry) => `${l.folder} may import ${entry} but does not`),
    );
    assert.deepEqual(unused, []);
  });
});

describe('the layer table in docs/architecture.md', () => {
  it('is the table scripts/layers.mjs enforces', () => {
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    assert.ok(doc.includes(layerTable()), 'regenerate it: node -e "import(\'./scripts/layerRule.mjs\').then(m => console.log(m.layerTable()))"');
  });
});
