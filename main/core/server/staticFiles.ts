import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** The Content-Security-Policy of the UI: only its own files and its own WebSocket. */
export const UI_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self' ws://127.0.0.1:* ws://localhost:* ws://[::1]:*; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The file under `root` a URL path names, with its content type; undefined for anything outside root. */
export function resolveStaticFile(root: string, pathname: string): { file: string; type: string; index: boolean } | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  if (relative.includes('\0')) return undefined;
  const file = normalize(join(root, relative));
  if (!file.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  return { file, type: TYPES[extname(file)] ?? 'application/octet-stream', index: relative === 'index.html' };
}

/**
 * Serves the built renderer from `root` (GET only, no directory listing, no path outside root),
 * with a strict CSP. Answers false when it did not handle the request.
 */
export function staticFiles(root: string): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    let pathname: string;
    try {
      pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      return false;
    }
    const resolved = resolveStaticFile(root, pathname);
    if (resolved === undefined) return false;
    let body: Buffer;
    try {
      body = await readFile(resolved.file);
    } catch {
      return false;
    }
    res.writeHead(200, {
      'content-type': resolved.type,
      'content-security-policy': UI_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': resolved.index ? 'no-store' : 'public, max-age=3600',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
