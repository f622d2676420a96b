import type { ServerResponse } from 'node:http';

/** A small HTML page for a person's browser: no script, no outside resource, nothing cached, no referrer. */
export function htmlPage(res: ServerResponse, status: number, title: string, body: string): void {
  if (res.headersSent) return;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "default-src 'none'",
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
  res.end(`<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1>${body}`);
}
