import { missingPackages, packageSet, runCommand, type Runner } from '../../desktop/systemPackages.js';
import { parseFlags } from '../cliArgs.js';

/** What `install-deps` will do on this machine, decided before anything runs. */
export type InstallPlan =
  { kind: 'refuse'; reason: string } | { kind: 'nothing'; count: number } | { kind: 'install'; packages: string[]; sudo: boolean; commands: string[][] };

/** What the plan depends on: the machine, found out by the caller (the tests inject it). */
export interface Machine {
  platform: NodeJS.Platform;
  isRoot: boolean;
  hasApt: boolean;
  hasSudo: boolean;
  /** Missing packages of the wanted set; undefined when dpkg cannot be asked. */
  missing: string[] | undefined;
}

/** Decides what to install and how: apt-get as root, through sudo otherwise; refuses where apt-get is not. */
export function installPlan(wanted: readonly string[], m: Machine): InstallPlan {
  if (m.platform !== 'linux' || !m.hasApt || m.missing === undefined) {
    return {
      kind: 'refuse',
      reason: `this system has no apt-get/dpkg: install-deps knows Debian and Ubuntu only. Install the equivalents of these Debian packages with your package manager: ${wanted.join(' ')}`,
    };
  }
  if (m.missing.length === 0) return { kind: 'nothing', count: wanted.length };
  if (!m.isRoot && !m.hasSudo) return { kind: 'refuse', reason: `not root and sudo is not installed: run it as root to install ${m.missing.join(' ')}` };
  const prefix = m.isRoot ? [] : ['sudo', '--'];
  // env: sudo resets the environment, and apt must not stop to ask questions.
  const apt = [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];
  return {
    kind: 'install',
    packages: m.missing,
    sudo: !m.isRoot,
    commands: [
      [...apt, 'update'],
      [...apt, 'install', '-y', '--no-install-recommends', ...m.missing],
    ],
  };
}

/** The machine as it is. */
export function thisMachine(wanted: readonly string[], run: Runner): Machine {
  const works = (command: string): boolean => run(command, ['--version']).status === 0;
  return {
    platform: process.platform,
    isRoot: process.getuid?.() === 0,
    hasApt: process.platform === 'linux' && works('apt-get'),
    hasSudo: works('sudo'),
    missing: process.platform === 'linux' ? missingPackages(wanted, run) : undefined,
  };
}

/**
 * `overseer install-deps [--test] [--dry-run]`: installs the system packages of the demo desktop
 * (with --test, of the test suite) on Debian/Ubuntu, printing exactly what it installs.
 */
export function installDeps(
  argv: readonly string[],
  run: Runner = runCommand,
  machine: (wanted: readonly string[]) => Machine = (w) => thisMachine(w, run),
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): number {
  const { flags, rest } = parseFlags(argv, ['test', 'dry-run']);
  if (rest.length > 0 || [...flags.keys()].some((k) => k !== 'test' && k !== 'dry-run')) throw new Error('usage: overseer install-deps [--test] [--dry-run]');
  const test = flags.get('test') === true;
  const dry = flags.get('dry-run') === true;
  const what = test ? 'the demo desktop and the tests' : 'the demo desktop';
  const wanted = packageSet(test).map((p) => p.name);
  const plan = installPlan(wanted, machine(wanted));
  if (plan.kind === 'refuse') {
    out(`[install-deps] ${plan.reason}`);
    return 1;
  }
  if (plan.kind === 'nothing') {
    out(`[install-deps] nothing to install: all ${plan.count} packages of ${what} are installed`);
    return 0;
  }
  out(`[install-deps] ${dry ? 'would install' : 'installing'} ${plan.packages.length} packages for ${what}: ${plan.packages.join(' ')}`);
  if (plan.sudo) out('[install-deps] not running as root: using sudo (it may ask for your password)');
  for (const command of plan.commands) {
    out(`[install-deps] ${dry ? 'would run' : 'running'}: ${command.join(' ')}`);
    if (dry) continue;
    const [file, ...args] = command as [string, ...string[]];
    const r = run(file, args, { inherit: true });
    if (r.status !== 0) {
      out(`[install-deps] failed (${r.error ?? `exit ${String(r.status)}`}): ${command.join(' ')}`);
      return 1;
    }
  }
  if (dry) return 0;
  const still = missingPackages(plan.packages, run) ?? plan.packages;
  if (still.length > 0) {
    out(`[install-deps] apt-get finished but dpkg still does not show these installed: ${still.join(' ')}`);
    return 1;
  }
  out(`[install-deps] installed: ${plan.packages.join(' ')}`);
  return 0;
}
