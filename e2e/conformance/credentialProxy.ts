import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy that adds the agent credential to every request, as a configured client
 * would: the conformance suite has no way to send one. Everything else passes through as it is,
 * streamed both ways (an SSE answer, the standalone event stream), except `Host`, which names the
 * server behind it; a request that closes early closes its upstream request too.
 */
export async function credentialProxy(target: string, token: string): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const headers = { ...req.headers, host: upstream.host, authorization: `Bearer ${token}` };
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.once('error', () => res.destroy());
    });
    out.once('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.once('close', () => out.destroy());
    req.pipe(out);
  };
  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
