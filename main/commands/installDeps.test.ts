import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEMO_PACKAGES, TEST_PACKAGES, missingPackages, missingPackagesHint, type Runner } from '../../desktop/systemPackages.js';
import { installDeps, installPlan, type Machine } from './installDeps.js';

/** A machine where dpkg shows `installed` installed; every command is recorded, apt-get installs what it is asked. */
function fakeMachine(installed: Iterable<string>, options: { aptFails?: boolean; noDpkg?: boolean } = {}) {
  const have = new Set(installed);
  const calls: { command: string; args: readonly string[]; inherit: boolean }[] = [];
  const run: Runner = (command, args, o = {}) => {
    calls.push({ command, args, inherit: o.inherit === true });
    if (command === 'dpkg-query') {
      if (options.noDpkg === true) return { status: null, stdout: '', error: 'spawnSync dpkg-query ENOENT' };
      const names = args.slice(2);
      return {
        status: names.every((n) => have.has(n)) ? 0 : 1,
        stdout: names
          .filter((n) => have.has(n))
          .map((n) => `${n}\tinstalled\n`)
          .join(''),
      };
    }
    const apt = args.indexOf('apt-get');
    if (apt >= 0 && args[apt + 1] === 'install') {
      if (options.aptFails === true) return { status: 100, stdout: '' };
      for (const p of args.slice(apt + 4)) have.add(p);
    }
    return { status: 0, stdout: '' };
  };
  return { run, calls, have };
}

const linux = (missing: string[] | undefined, over: Partial<Machine> = {}): Machine => ({
  platform: 'linux',
  isRoot: true,
  hasApt: true,
  hasSudo: true,
  missing,
  ...over,
});

function runInstall(argv: string[], fake: ReturnType<typeof fakeMachine>, machine: Partial<Machine> = {}) {
  const lines: string[] = [];
  const code = installDeps(
    argv,
    fake.run,
    (wanted) => linux(missingPackages(wanted, fake.run), machine),
    (l) => lines.push(l),
  );
  return { code, out: lines.join('\n') };
}

describe('system packages', () => {
  it('the test set holds the whole demo set, and every name once', () => {
    const test = TEST_PACKAGES.map((p) => p.name);
    for (const p of DEMO_PACKAGES) assert.ok(test.includes(p.name), p.name);
    assert.equal(new Set(test).size, test.length);
    for (const p of ['xvfb', 'at-spi2-core', 'python3-gi', 'mousepad', 'gnome-calculator', 'openbox'])
      assert.ok(
        DEMO_PACKAGES.some((d) => d.name === p),
        p,
      );
    for (const p of [
      'chromium',
      'python3-pyatspi',
      'xdotool',
      'imagemagick',
      'scrot',
      'x11-utils',
      'wine',
      'wine64',
      'gcc-mingw-w64-x86-64',
      'gtk-3-examples',
      'kwin-wayland',
      'xdg-desktop-portal-kde',
      'qtwayland5',
      'plasma-workspace',
    ])
      assert.ok(test.includes(p), p);
  });

  it('finds the missing ones with one dpkg-query, and cannot tell without dpkg', () => {
    const fake = fakeMachine(['xvfb', 'dbus']);
    assert.deepEqual(missingPackages(['xvfb', 'mousepad', 'dbus', 'openbox'], fake.run), ['mousepad', 'openbox']);
    assert.equal(fake.calls.length, 1);
    assert.equal(missingPackages(['xvfb'], fakeMachine([], { noDpkg: true }).run), undefined);
  });

  it('reads dpkg-query’s real output: arch-qualified names count, other states do not', () => {
    const run: Runner = () => ({ status: 1, stdout: 'xvfb\tinstalled\nwine:amd64\tinstalled\nmousepad\tconfig-files\n' });
    assert.deepEqual(missingPackages(['xvfb', 'wine', 'mousepad', 'openbox'], run), ['mousepad', 'openbox']);
  });

  it('names the missing packages and the command that installs them', () => {
    const all = DEMO_PACKAGES.map((p) => p.name);
    assert.equal(missingPackagesHint(false, fakeMachine(all).run), undefined);
    const hint = missingPackagesHint(false, fakeMachine(all.filter((p) => p !== 'xvfb' && p !== 'openbox')).run);
    assert.match(hint ?? '', /for the demo desktop: xvfb openbox — install them with: npx overseer install-deps$/);
    assert.match(missingPackagesHint(true, fakeMachine(all).run) ?? '', /for the tests: .*chromium.* npx overseer install-deps --test$/);
  });
});

describe('overseer install-deps', () => {
  it('as root installs exactly the missing packages with apt-get, and says what it installed', () => {
    const fake = fakeMachine(DEMO_PACKAGES.map((p) => p.name).filter((p) => p !== 'mousepad' && p !== 'openbox'));
    const r = runInstall([], fake);
    assert.equal(r.code, 0, r.out);
    const apt = fake.calls.filter((c) => c.inherit).map((c) => [c.command, ...c.args].join(' '));
    assert.deepEqual(apt, [
      'env DEBIAN_FRONTEND=noninteractive apt-get update',
      'env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openbox mousepad',
    ]);
    assert.match(r.out, /installing 2 packages for the demo desktop: openbox mousepad/);
    assert.match(r.out, /installed: openbox mousepad$/);
    assert.doesNotMatch(r.out, /sudo/);
  });

  it('not as root goes through sudo and says so', () => {
    const fake = fakeMachine([]);
    const r = runInstall(['--test'], fake, { isRoot: false });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /not running as root: using sudo/);
    const apt = fake.calls.filter((c) => c.inherit);
    assert.equal(apt.length, 2);
    for (const c of apt) assert.deepEqual([c.command, ...c.args.slice(0, 3)], ['sudo', '--', 'env', 'DEBIAN_FRONTEND=noninteractive']);
    assert.deepEqual(
      apt[1]?.args.slice(7),
      TEST_PACKAGES.map((p) => p.name),
    );
  });

  it('--dry-run prints the plan and runs nothing', () => {
    const fake = fakeMachine(['xvfb']);
    const r = runInstall(['--dry-run'], fake, { isRoot: false });
    assert.equal(r.code, 0);
    assert.deepEqual(
      fake.calls.filter((c) => c.inherit),
      [],
    );
    assert.match(r.out, /would install 8 packages for the demo desktop: dbus at-spi2-core openbox/);
    assert.match(r.out, /would run: sudo -- env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends dbus /);
  });

  it('says "nothing to install" when everything is there', () => {
    const fake = fakeMachine(TEST_PACKAGES.map((p) => p.name));
    const r = runInstall(['--test'], fake);
    assert.equal(r.code, 0);
    assert.equal(r.out, `[install-deps] nothing to install: all ${TEST_PACKAGES.length} packages of the demo desktop and the tests are installed`);
    assert.deepEqual(
      fake.calls.filter((c) => c.inherit),
      [],
    );
  });

  it('refuses clearly where there is no apt-get, naming the packages', () => {
    for (const m of [linux(['xvfb'], { hasApt: false }), linux(undefined), linux(['xvfb'], { platform: 'darwin' })]) {
      const plan = installPlan(['xvfb', 'dbus'], m);
      assert.equal(plan.kind, 'refuse');
      assert.match(plan.kind === 'refuse' ? plan.reason : '', /Debian and Ubuntu only.*: xvfb dbus$/);
    }
    const lines: string[] = [];
    assert.equal(
      installDeps(
        [],
        fakeMachine([]).run,
        () => linux(['xvfb'], { hasApt: false }),
        (l) => lines.push(l),
      ),
      1,
    );
    assert.match(lines.join('\n'), /no apt-get/);
  });

  it('refuses without root or sudo, and fails when apt-get fails', () => {
    assert.match(JSON.stringify(installPlan(['xvfb'], linux(['xvfb'], { isRoot: false, hasSudo: false }))), /run it as root/);
    const r = runInstall([], fakeMachine([], { aptFails: true }));
    assert.equal(r.code, 1);
    assert.match(r.out, /failed \(exit 100\): env DEBIAN_FRONTEND=noninteractive apt-get install/);
  });

  it('refuses unknown arguments', () => {
    for (const argv of [['--test', 'now'], ['--force=yes']]) assert.throws(() => installDeps(argv, fakeMachine([]).run), /usage: overseer install-deps/);
  });
});
