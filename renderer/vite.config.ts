import react from '@vitejs/plugin-react';
import { defineConfig, type ProxyOptions } from 'vite';

/** A directory next to this file, as a path (no node:url here: the renderer zone bans Node imports). */
const here = (relative: string): string => decodeURIComponent(new URL(relative, import.meta.url).pathname);
const root = here('.');
/** The supervisor the dev server and `vite preview` relay `/ui` to (its Host/Origin checks want its own origin). */
const supervisor = `127.0.0.1:${process.env['OVERSEER_PORT'] ?? '7399'}`;
const uiProxy: Record<string, ProxyOptions> = {
  '/ui': {
    target: `http://${supervisor}`,
    ws: true,
    changeOrigin: true,
    configure: (proxy) => {
      proxy.on('proxyReqWs', (proxyReq) => proxyReq.setHeader('origin', `http://${supervisor}`));
    },
  },
};

/** Builds the supervisor UI into dist/renderer with relative asset URLs (the Electron shell loads it from file://). */
export default defineConfig({
  root,
  base: './',
  plugins: [react()],
  build: {
    outDir: here('../dist/renderer'),
    emptyOutDir: true,
    // No inline assets: a strict CSP (img-src 'self' data:) is fine with data: images, but keep scripts and styles as files.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  server: { host: '127.0.0.1', proxy: uiProxy },
  preview: { host: '127.0.0.1', proxy: uiProxy },
});
