import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

// npm runs a dependency's install script only as package.json's `allowScripts` says, and warns at
// every install about each one it does not name (CONTRIBUTING.md#install-scripts). These tests
// keep the list the lockfile's own: every package with an install script is named, allowed or
// denied, and nothing else is.

const root = new URL('..', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { allowScripts?: Record<string, unknown> };
const lock = JSON.parse(readFileSync(`${root}package-lock.json`, 'utf8')) as {
  packages: Record<string, { name?: string; hasInstallScript?: boolean }>;
};

/** The registry name of a lockfile entry (`node_modules/a/node_modules/@s/b` → `@s/b`). */
const nameOf = (path: string, entry: { name?: string }): string => entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

const withScripts = new Set(
  Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
    .map(([path, entry]) => nameOf(path, entry)),
);
const policy = manifest.allowScripts ?? {};

describe('allowScripts', () => {
  it('names every dependency of the lockfile that has an install script', () => {
    assert.ok(withScripts.size > 0, 'the lockfile records hasInstallScript');
    assert.deepEqual([...withScripts].filter((name) => !(name in policy)).sort(), []);
  });

  it('names nothing that has no install script, so a stale entry cannot allow a future one', () => {
    assert.deepEqual(
      Object.keys(policy).filter((key) => !withScripts.has(key)),
      [],
    );
  });

  it('holds name-only entries set to true or false', () => {
    // The lockfile carries no `resolved` URL (omit-lockfile-registry-resolved), and npm refuses a
    // pinned entry (`koffi@3.3.4`) whose version it cannot verify from one: only a name matches.
    for (const [key, value] of Object.entries(policy)) {
      assert.match(key, /^(@[a-z0-9._-]+\/)?[a-z0-9._-]+$/, `${key} is a bare package name`);
      assert.equal(typeof value, 'boolean', `${key} is allowed (true) or denied (false)`);
    }
  });

  it('allows the scripts the project needs: koffi checks its prebuilt binary, esbuild its own', () => {
    assert.equal(policy.koffi, true);
    assert.equal(policy.esbuild, true);
  });
});
