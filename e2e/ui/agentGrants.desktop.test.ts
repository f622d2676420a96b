import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Page } from 'playwright-core';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { CONTEXT_META } from '../../main/core/mcp/contextHandles.js';
import { httpClient } from '../../main/testing/serveHarness.js';
import { armed } from './queue.js';
import { UI_LANES, type UiSession } from './uiLanes.js';

/**
 * The SDK's own client auth provider, as an MCP client app keeps it: its registration, tokens and
 * PKCE verifier. Its "browser" follows the authorization URL without following the redirect, and
 * reads the code from where the authorize endpoint sends it once the person decided.
 */
class AgentAuth implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizing: Promise<string> | undefined;
  constructor(readonly clientName: string) {}
  get redirectUrl(): string {
    // Never reached: the test reads the code from the redirect's Location.
    return 'http://127.0.0.1:9/callback';
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizing = fetch(url, { redirect: 'manual' }).then((res) => {
      const location = res.headers.get('location');
      if (location === null) throw new Error(`the authorize endpoint answered ${res.status} without a redirect`);
      const back = new URL(location);
      const code = back.searchParams.get('code');
      if (code === null) throw new Error(`the authorization came back without a code: ${back.search}`);
      return code;
    });
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/**
 * docs/agents.md through the real `overseer serve` and its UI in Debian's Chromium, with the MCP
 * SDK's client OAuth support as the agents: discovery from the 401, dynamic registration, the
 * authorization code with PKCE whose consent the person gives on an agent_grant card, tokens; two
 * agents calling themselves the same are two identities; a revoked one is refused at once.
 */
describe('per-agent grants (browser lane)', () => {
  let desktop: PrivateDesktop;
  let ui: UiSession;
  let page: Page;
  const clients: Client[] = [];
  const url = (): URL => new URL(ui.mcp.mcpUrl);

  /** Connects as a client app would: refused, authorized with the person's consent in the UI, connected. */
  const grantedClient = async (auth: AgentAuth, calledItself: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> => {
    const first = new StreamableHTTPClientTransport(url(), { authProvider: auth });
    await assert.rejects(new Client({ name: calledItself, version: '1.0.0' }).connect(first), UnauthorizedError);
    assert.ok(auth.info?.client_id.startsWith('C'), 'the client registered itself');
    const card = page.getByTestId('pending-card').filter({ has: page.getByTestId('grant-request') });
    await card.waitFor({ timeout: 15_000 });
    assert.match(await card.getByTestId('grant-claimed-name').innerText(), new RegExp(auth.clientName));
    assert.match(await card.getByTestId('grant-redirect').innerText(), /http:\/\/127\.0\.0\.1:9/);
    await (await armed(card.getByTestId('approve-button'))).click();
    assert.ok(auth.authorizing !== undefined);
    await first.finishAuth(await auth.authorizing);
    assert.match(auth.saved?.access_token ?? '', /^ovr_at_/);
    const transport = new StreamableHTTPClientTransport(url(), { authProvider: auth });
    const client = new Client({ name: calledItself, version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  };
  const agentNames = async (): Promise<string[]> => {
    return page.getByTestId('agent-item').locator('strong').allInnerTexts();
  };
  const openAgentsSettings = async (): Promise<void> => {
    await page.getByTestId('tab-settings').click();
    await page.getByTestId('settings-agents').waitFor();
  };

  before(async () => {
    desktop = await startPrivateDesktop();
    const lane = UI_LANES.find((l) => l.name === 'browser');
    assert.ok(lane);
    ui = await lane.start(desktop.env);
    page = ui.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByTestId('brake-state').and(page.locator('[data-state="running"]')).waitFor();
  });
  after(async () => {
    for (const c of [...clients, ...stdioClients]) await c.close().catch(() => {});
    await ui?.stop();
    await desktop?.stop();
  });

  const first = new AgentAuth('Claude Code');
  const second = new AgentAuth('Claude Code');
  let firstTransport: StreamableHTTPClientTransport;

  it('answers 401 with where to authorize, and publishes both metadata documents', async () => {
    const res = await fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.ok(metadataUrl !== undefined, challenge);
    const resource = (await (await fetch(metadataUrl)).json()) as { resource: string; authorization_servers: string[] };
    assert.equal(resource.resource, url().toString());
    const server = (await (await fetch(`${resource.authorization_servers[0]}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    assert.deepEqual(server['code_challenge_methods_supported'], ['S256']);
    assert.equal(server['client_id_metadata_document_supported'], true);
  });

  it('grants the SDK client its own credential once the person approves the card in the UI', async () => {
    const { client, transport } = await grantedClient(first, 'Claude Code');
    firstTransport = transport;
    assert.ok((await client.listTools()).tools.length > 0);
    await openAgentsSettings();
    await page.locator('[data-testid="grant-row"][data-name="Claude Code"]').waitFor();
  });

  it('shows a second client that calls itself the same as its own identity', async () => {
    const { client, transport } = await grantedClient(second, 'Claude Code');
    assert.ok((await client.listTools()).tools.length > 0);
    await openAgentsSettings();
    await page.locator('[data-testid="grant-row"][data-name="Claude Code (2)"]').waitFor();
    assert.deepEqual((await agentNames()).sort(), ['Claude Code', 'Claude Code (2)']);
    // Its token does not drive the first agent's session.
    const other = await fetch(url(), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${second.saved?.access_token ?? ''}`,
        'mcp-session-id': firstTransport.sessionId ?? '',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(other.status, 404);
    assert.ok(transport.sessionId !== firstTransport.sessionId);
  });

  it('knows a 2026-07-28 client by its grant too, and a context handle answers only the credential that minted it', async () => {
    /** A stateless client pinned to 2026-07-28, presenting `token`; it calls itself `name`. */
    const modern = async (token: string, name: string): Promise<ModernClient> => {
      const client = new ModernClient({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new ModernHttp(url(), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      return client;
    };
    const granted = await modern(second.saved?.access_token ?? '', 'Someone Else');
    const first = await granted.callTool({ name: 'computer_use_activate', arguments: { tiers: ['accessibility'] } });
    const handle = (first._meta as Record<string, unknown> | undefined)?.[CONTEXT_META];
    assert.equal(typeof handle, 'string', 'the first call minted a context handle');
    // Its context is an agent of the grant's name, whatever it calls itself.
    await page.getByTestId('agent-item').filter({ hasText: 'Claude Code (2)' }).nth(1).waitFor({ timeout: 5000 });
    assert.deepEqual((await agentNames()).filter((n) => n !== 'Claude Code').sort(), ['Claude Code (2)', 'Claude Code (2)']);
    assert.equal((await agentNames()).includes('Someone Else'), false, 'the name it gave itself is not its name');
    // The same handle under the shared token is unknown: it never reaches the granted agent's context.
    const shared = await modern(ui.mcp.token, 'Claude Code (2)');
    const foreign = await shared.callTool({ name: 'window_list', arguments: { output: 'json', context: handle } });
    assert.equal(foreign.isError, true);
    assert.match((foreign.content as { text?: string }[])[0]?.text ?? '', /snapshot_unknown/);
    const own = await granted.callTool({ name: 'window_list', arguments: { output: 'json', context: handle } });
    assert.notEqual(own.isError, true, JSON.stringify(own.content));
    await shared.close();
    await granted.close();
  });

  it('refuses a revoked agent at once and ends its session, the other one unaffected', async () => {
    await openAgentsSettings();
    const row = page.locator('[data-testid="grant-row"][data-name="Claude Code"]');
    await row.getByTestId('grant-revoke').click();
    await row.getByTestId('grant-revoke-confirm').click();
    await row.waitFor({ state: 'detached' });
    const refused = await fetch(url(), {
      method: 'POST',
      headers: { authorization: `Bearer ${first.saved?.access_token ?? ''}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /invalid_token/);
    // Its refresh token is dead too: the SDK client cannot get back in without a new consent.
    const refresh = await fetch(new URL('/oauth/token', url()), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.saved?.refresh_token ?? '', client_id: first.info?.client_id ?? '' }),
    });
    assert.equal(refresh.status, 400);
    // What is left is the second agent: its 2025-11-25 session and its 2026-07-28 context.
    assert.deepEqual([...new Set(await agentNames())], ['Claude Code (2)']);
    assert.ok((await clients[1]?.listTools())?.tools.length);
  });

  it('turns the shared token off from Settings → Agents', async () => {
    const shared = await httpClient(ui.mcp, 'shared-token-agent', { tiers: [] });
    await shared.close();
    await openAgentsSettings();
    // A controlled box: it changes once the supervisor saved the setting.
    await page.getByTestId('settings-shared-token').click();
    await page.locator('[data-testid="settings-shared-token"]:not(:checked)').waitFor();
    await assert.rejects(httpClient(ui.mcp, 'shared-token-agent', { tiers: [] }), /a valid bearer token is required/);
    // A configuration with the token is no longer offered, and the token is nowhere on the page.
    await page.getByTestId('settings-snippet-http-token').waitFor({ state: 'detached' });
    assert.equal(await page.getByText(ui.mcp.token).count(), 0);
  });

  /** The `overseer mcp` configuration Settings → Agents showed for a new stdio grant. */
  let stdioConfig: { command: string; args: string[]; env: Record<string, string> };
  const stdioClients: { close(): Promise<void> }[] = [];
  const bridgeParams = (env: Record<string, string>) => ({
    command: stdioConfig.command,
    args: stdioConfig.args,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe' as const,
  });

  it('gives an overseer mcp agent its own credential in Settings → Agents, shown once, and knows it by that grant in both eras', async () => {
    await openAgentsSettings();
    await page.getByTestId('stdio-grant-name').fill('Codex');
    await page.getByTestId('stdio-grant-make').click();
    const made = page.getByTestId('stdio-grant-made');
    await made.waitFor();
    stdioConfig = (JSON.parse(await made.getByTestId('settings-snippet-stdio-credential').innerText()) as { mcpServers: { overseer: typeof stdioConfig } })
      .mcpServers.overseer;
    assert.match(stdioConfig.env.OVERSEER_AGENT_CREDENTIAL ?? '', /^ovr_sc_[A-Za-z0-9_-]{43}$/);
    await page.locator('[data-testid="grant-row"][data-name="Codex"]').waitFor();
    await made.getByTestId('stdio-grant-done').click();
    await made.waitFor({ state: 'detached' });
    assert.equal(await page.getByText(stdioConfig.env.OVERSEER_AGENT_CREDENTIAL ?? '').count(), 0, 'the credential is shown once');
    // The shared token is off (the test before): only its own credential gets this agent in. It calls itself another agent's name.
    const legacy = new Client({ name: 'Claude Code', version: '1.0.0' });
    await legacy.connect(new StdioClientTransport(bridgeParams(stdioConfig.env)));
    stdioClients.push(legacy);
    assert.ok((await legacy.listTools()).tools.length > 0);
    const modern = new ModernClient({ name: 'Claude Code', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new ModernStdio(bridgeParams(stdioConfig.env)));
    stdioClients.push(modern);
    assert.equal(modern.getProtocolEra?.(), 'modern');
    await modern.callTool({ name: 'computer_use_activate', arguments: { tiers: ['accessibility'] } });
    await page.getByTestId('agent-item').filter({ hasText: 'Codex' }).nth(1).waitFor({ timeout: 10_000 });
    assert.deepEqual(
      (await agentNames()).filter((n) => n !== 'Claude Code (2)'),
      ['Codex', 'Codex'],
      'both bridges are the grant, whatever they call themselves',
    );
    await openAgentsSettings();
    await page.locator('[data-testid="grant-row"][data-name="Codex"]').filter({ hasText: '2 sessions open' }).waitFor({ timeout: 10_000 });
  });

  it('closes a revoked overseer mcp agent at once in both eras, and refuses its credential and the token file after', async () => {
    const closed = stdioClients.map(
      (c) =>
        new Promise<void>((resolve) => {
          const client = c as { onclose?: () => void };
          client.onclose = resolve;
        }),
    );
    await openAgentsSettings();
    const row = page.locator('[data-testid="grant-row"][data-name="Codex"]');
    await row.getByTestId('grant-revoke').click();
    await row.getByTestId('grant-revoke-confirm').click();
    await row.waitFor({ state: 'detached' });
    await Promise.all(
      closed.map((c) => Promise.race([c, new Promise((_, reject) => setTimeout(() => reject(new Error('a revoked bridge stayed open')), 5000))])),
    );
    /** A bridge's refusal, in the words `overseer mcp` prints. */
    const refused = async (env: Record<string, string>): Promise<string> => {
      const transport = new StdioClientTransport(bridgeParams(env));
      let said = '';
      transport.stderr?.on('data', (b: Buffer) => (said += b.toString('utf8')));
      await assert.rejects(new Client({ name: 'again', version: '1.0.0' }).connect(transport));
      await transport.close().catch(() => {});
      return said;
    };
    assert.match(await refused(stdioConfig.env), /refused the connection: the credential is not known/);
    const { OVERSEER_AGENT_CREDENTIAL: _own, ...noCredential } = stdioConfig.env;
    assert.match(await refused({ ...noCredential, OVERSEER_AGENT_CREDENTIAL: '' }), /shared agent token is turned off in Settings → Agents/);
  });

  it('turns the shared token back on, and its configuration shows the token at once, without a reload', async () => {
    await openAgentsSettings();
    await page.getByTestId('settings-shared-token').click();
    await page.locator('[data-testid="settings-shared-token"]:checked').waitFor();
    const snippet = page.getByTestId('settings-snippet-http-token');
    await snippet.waitFor();
    const config = JSON.parse(await snippet.innerText()) as { mcpServers: { overseer: { headers: { Authorization: string } } } };
    assert.equal(config.mcpServers.overseer.headers.Authorization, `Bearer ${ui.mcp.token}`);
    const shared = await httpClient(ui.mcp, 'shared-token-agent', { tiers: [] });
    await shared.close();
  });
});
