import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

// npm runs a dependency's install script only as package.json's `allowScripts` says, and warns at
// every install about each one it does not name (CONTRIBUTING.md#install-scripts). These tests
// keep each list its lockfile's own: every package with an install script is named, allowed or
// denied, and nothing else is. That holds for the project and for each pinned third-party tool's
// own folder under e2e/thirdParty, which `npm ci` installs the same way.

const root = new URL('..', import.meta.url).pathname;
const THIRD_PARTY = 'e2e/thirdParty';
const projects = [
  '',
  ...readdirSync(`${root}${THIRD_PARTY}`, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `${THIRD_PARTY}/${d.name}/`),
];

/** The registry name of a lockfile entry (`node_modules/a/node_modules/@s/b` → `@s/b`). */
const nameOf = (path: string, entry: { name?: string }): string => entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

/** One project's policy and the packages of its lockfile that have an install script. */
function project(dir: string): { policy: Record<string, unknown>; withScripts: Set<string> } {
  const manifest = JSON.parse(readFileSync(`${root}${dir}package.json`, 'utf8')) as { allowScripts?: Record<string, unknown> };
  const lock = JSON.parse(readFileSync(`${root}${dir}package-lock.json`, 'utf8')) as {
    packages: Record<string, { name?: string; hasInstallScript?: boolean }>;
  };
  const withScripts = new Set(
    Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
      .map(([path, entry]) => nameOf(path, entry)),
  );
  return { policy: manifest.allowScripts ?? {}, withScripts };
}

for (const dir of projects)
  describe(`allowScripts of ${dir === '' ? 'the project' : dir}`, () => {
    const { policy, withScripts } = project(dir);

    it('names every dependency of the lockfile that has an install script', () => {
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
  });

describe('allowScripts of the project', () => {
  it('allows the scripts the project needs: koffi checks its prebuilt binary, esbuild its own', () => {
    const { policy, withScripts } = project('');
    assert.ok(withScripts.size > 0, 'the lockfile records hasInstallScript');
    assert.equal(policy.koffi, true);
    assert.equal(policy.esbuild, true);
  });
});
