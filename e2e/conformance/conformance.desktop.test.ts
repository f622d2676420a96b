import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { removeDataDir, serve, type Served } from '../../main/testing/serveHarness.js';
import { credentialProxy } from './credentialProxy.js';
import { pinnedTool, type PinnedTool } from '../thirdParty/install.js';

/*
 * The MCP conformance suite (pinned, on Node 22: e2e/thirdParty/install.ts) against the real `overseer serve`
 * on a private desktop: every server scenario it lists, each judged against expected-failures.json.
 * A scenario that starts passing, a check that fails for another reason, or a scenario the file
 * does not name fails here. The suite sends no credential: it reaches the server through a proxy
 * that adds the agent's bearer token, as a configured client would, except the DNS-rebinding
 * scenario, which is about what the server answers the suite's own requests.
 */

interface Expected {
  suite: string;
  passes: Record<string, string>;
  vacuous: Record<string, string>;
  expected_failures: Record<string, { checks: Record<string, string>; why: string }>;
}
interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

const expected = JSON.parse(await readFile(new URL('expected-failures.json', import.meta.url), 'utf8')) as Expected;
/** Scenarios run against the server itself, without the credential proxy. */
const UNPROXIED = new Set(['dns-rebinding-protection']);
const SCENARIO_MS = 90_000;

/** Runs the suite's CLI; resolves with its exit code and output, whatever the code. */
function suite(tools: PinnedTool, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(tools.node, [tools.cli, ...args], { timeout: SCENARIO_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

describe(`MCP conformance (${expected.suite}) against overseer serve`, () => {
  let tools: PinnedTool;
  let desktop: PrivateDesktop;
  let s: Served;
  let proxy: Awaited<ReturnType<typeof credentialProxy>>;
  let outRoot: string;

  before(async () => {
    tools = pinnedTool('conformance');
    assert.equal(`@modelcontextprotocol/conformance@${tools.version}`, expected.suite, 'expected-failures.json is for the pinned suite');
    desktop = await startPrivateDesktop();
    s = await serve(desktop.env);
    proxy = await credentialProxy(s.mcpUrl, s.token);
    outRoot = await mkdtemp(join(tmpdir(), 'overseer-conformance-'));
  });
  after(async () => {
    await proxy?.close();
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
    if (outRoot !== undefined) await rm(outRoot, { recursive: true, force: true });
  });

  /** One scenario's checks, from the results the suite writes. */
  const run = async (scenario: string): Promise<{ checks: Check[]; output: string }> => {
    const out = join(outRoot, scenario);
    const url = UNPROXIED.has(scenario) ? s.mcpUrl : proxy.url;
    const { output } = await suite(tools, ['server', '--url', url, '--scenario', scenario, '-o', out]);
    const [dir] = await readdir(out).catch(() => []);
    assert.ok(dir !== undefined, `the suite wrote no results for ${scenario}:\n${output}`);
    return { checks: JSON.parse(await readFile(join(out, dir, 'checks.json'), 'utf8')) as Check[], output };
  };
  const failures = (checks: Check[]): Check[] => checks.filter((c) => c.status === 'FAILURE');
  const report = (scenario: string, checks: Check[], verdict: string): void => {
    const counts = ['SUCCESS', 'FAILURE', 'WARNING'].map((st) => `${checks.filter((c) => c.status === st).length} ${st.toLowerCase()}`).join(', ');
    process.stdout.write(`[conformance] ${scenario}: ${verdict} (${counts})\n`);
  };

  it('the file names every server scenario of the suite, each once', async () => {
    const { output } = await suite(tools, ['list', '--server']);
    const listed = [...output.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1] ?? '').sort();
    const named = [...Object.keys(expected.passes), ...Object.keys(expected.vacuous), ...Object.keys(expected.expected_failures)];
    assert.deepEqual(named.slice().sort(), listed);
    assert.equal(new Set(named).size, named.length, 'no scenario is named twice');
  });

  for (const [scenario, what] of [...Object.entries(expected.passes), ...Object.entries(expected.vacuous)])
    it(`${scenario} reports no failure: ${what}`, async () => {
      const { checks, output } = await run(scenario);
      report(scenario, checks, scenario in expected.passes ? 'passes' : 'no failure (vacuous)');
      assert.ok(checks.length > 0, output);
      assert.deepEqual(failures(checks), [], output);
    });

  for (const [scenario, { checks: failing, why }] of Object.entries(expected.expected_failures))
    it(`${scenario} fails as expected: ${why}`, async () => {
      const { checks, output } = await run(scenario);
      report(scenario, checks, 'expected failure');
      const failed = failures(checks);
      assert.deepEqual(failed.map((c) => c.id).sort(), Object.keys(failing).sort(), `exactly the expected checks fail:\n${output}`);
      for (const check of failed)
        assert.ok(check.errorMessage?.includes(failing[check.id] ?? '\0'), `${check.id} fails for the reason named: ${check.errorMessage}`);
    });

  it('refuses a foreign Host or Origin 403 and asks a page on another loopback port for the credential (401), refusing it 403 with one', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'origin-probe', version: '1' } },
    });
    const port = new URL(s.mcpUrl).port;
    // node:http, which sends the Host it is given (fetch does not).
    const post = (headers: Record<string, string>): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = request(
          s.mcpUrl,
          { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.once('error', reject);
        req.end(initialize);
      });
    const bearer = { authorization: `Bearer ${s.token}` };
    const statuses = {
      foreignHostWithToken: await post({ host: `evil.example.com:${port}`, ...bearer }),
      foreignOrigin: await post({ origin: 'http://evil.example.com' }),
      foreignOriginWithToken: await post({ origin: 'http://evil.example.com', ...bearer }),
      otherLoopbackPort: await post({ origin: 'http://localhost:6274' }),
      otherLoopbackPortWithToken: await post({ origin: 'http://localhost:6274', ...bearer }),
      ownOrigin: await post({ origin: `http://127.0.0.1:${port}` }),
      ownOriginWithToken: await post({ origin: `http://127.0.0.1:${port}`, ...bearer }),
    };
    assert.deepEqual(statuses, {
      foreignHostWithToken: 403,
      foreignOrigin: 403,
      foreignOriginWithToken: 403,
      otherLoopbackPort: 401,
      otherLoopbackPortWithToken: 403,
      ownOrigin: 401,
      ownOriginWithToken: 200,
    });
  });
});
