import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { allowPlainJson, asksNoProgress, withAnswerMode } from './jsonResponses.js';

/** The body of a POST, parsed (the way mcpHttp reads it before handing it on). */
async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return chunks.length === 0 ? undefined : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
}

describe('per-request JSON answers on the real SDK transport', () => {
  let http: HttpServer;
  let transport: StreamableHTTPServerTransport;
  let client: Client;
  const types: string[] = [];

  before(async () => {
    const server = new Server({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'slow', inputSchema: { type: 'object' } }] }));
    // Reports progress three times when asked, like a call waiting for a person.
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const token = request.params._meta?.progressToken;
      for (let i = 1; i <= 3 && token !== undefined; i++) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i } });
        await new Promise((r) => setTimeout(r, 20));
      }
      return { content: [{ type: 'text', text: `answer ${String(request.params.arguments?.['n'])}` }] };
    });
    transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    assert.equal(
      allowPlainJson(transport, () => {}),
      true,
      'this SDK offers per-request JSON answers',
    );
    await server.connect(transport);
    http = createServer((req, res) => {
      void (async () => {
        const body = req.method === 'POST' ? await bodyOf(req) : undefined;
        await withAnswerMode(req.method === 'POST' && asksNoProgress(body), () => transport.handleRequest(req, res, body));
      })();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as { port: number };
    const noting = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const response = await fetch(url, init);
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) types.push((response.headers.get('content-type') ?? '').split(';')[0] ?? '');
      return response;
    };
    client = new Client({ name: 'test-agent', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { fetch: noting }));
  });
  after(async () => {
    await client?.close();
    await transport?.close();
    http?.close();
  });

  it('answers calls without a progress token as JSON and streams the one that asks, side by side', async () => {
    types.length = 0;
    const progress: number[] = [];
    const streamed = client.callTool({ name: 'slow', arguments: { n: 0 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    const plain = await Promise.all([1, 2, 3].map((n) => client.callTool({ name: 'slow', arguments: { n } })));
    assert.deepEqual(
      plain.map((r) => (r.content as { text: string }[])[0]?.text),
      ['answer 1', 'answer 2', 'answer 3'],
    );
    assert.equal(((await streamed).content as { text: string }[])[0]?.text, 'answer 0');
    assert.deepEqual(progress, [1, 2, 3]);
    assert.deepEqual([...types].sort(), ['application/json', 'application/json', 'application/json', 'text/event-stream']);
  });

  it('keeps nothing of a JSON answer once it is out', async () => {
    for (let n = 0; n < 50; n++) await client.callTool({ name: 'slow', arguments: { n } });
    // The SDK's own map of open response streams: only the session's standalone GET stream stays.
    const web = (transport as unknown as { _webStandardTransport: { _streamMapping: Map<string, unknown> } })._webStandardTransport;
    assert.ok(web._streamMapping.size <= 1, `${web._streamMapping.size} response streams left open`);
  });
});
