// The screen bench's token part: what a screenshot of a real window costs an agent against what the
// same window's window_read costs as the compact text it reads. The text comes the agent's way: the
// helper over RPC (main/core/helperLink/helperProcess.ts), the supervisor's read tool (readTools.windowRead,
// default settings) and its text renderer (render.ts renderWindowRead), as the MCP answer carries it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { PrivateDesktop } from '../desktop/privateDesktop.js';
import { downscale } from '../helper/screen/image/downscale.js';
import { encodePng } from '../helper/screen/image/png.js';
import type { X11ScreenBackend } from '../helper/screen/x11/x11Backend.js';
import { spawnHelper, type HelperProcess } from '../main/core/helperLink/helperProcess.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import { AgentSession } from '../main/core/session/agentSession.js';
import { windowRead } from '../main/core/tools/readTools.js';
import { renderWindowRead } from '../main/core/tools/render.js';
import { DEFAULT_SETTINGS, type WindowInfo } from '../protocol/index.js';

/** Anthropic's estimate of an image's tokens: width × height / 750 (for images within its size limits). */
export const imageTokens = (width: number, height: number): number => Math.ceil((width * height) / 750);
/** The project's estimate for text: ≈ 4 characters a token (as helper/core/text.ts approxTokens and bench/supervisor.ts count). */
export const textTokens = (text: string): number => Math.ceil(text.length / 4);

const APPS = [
  {
    label: 'GTK fixture (--rows 200)',
    command: '/usr/bin/python3',
    args: [`${REPO_ROOT}desktop/apps/fixtureApp.py`, '--rows', '200'],
    title: 'Overseer Fixture',
  },
  { label: 'mousepad', command: 'mousepad', args: [], title: 'Untitled 1 - Mousepad' },
] as const;

/** One window's figures. */
export interface WindowTokens {
  label: string;
  window_rect?: string;
  image?: string;
  image_tokens?: number;
  png_kib?: number;
  text_chars?: number;
  text_tokens?: number;
  node_count?: number;
  truncated_by?: string[];
  error?: string;
}

/** Every window's figures, and the lines the bench prints. */
export interface TokenFigures {
  windows: WindowTokens[];
  lines: string[];
}

async function findWindow(helper: HelperProcess, title: string, pid: number): Promise<WindowInfo> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const { windows } = await helper.call('window_list', {}, { timeoutMs: 30_000 });
    const w = windows.find((x) => x.title === title && x.pid === pid) ?? windows.find((x) => x.title === title);
    if (w !== undefined) return w;
    await sleep(200);
  }
  throw new Error(`window_list never listed ${JSON.stringify(title)}`);
}

async function measureWindow(
  desktop: PrivateDesktop,
  backend: X11ScreenBackend,
  helper: HelperProcess,
  session: AgentSession,
  app: (typeof APPS)[number],
  fit: { width: number; height: number },
): Promise<WindowTokens> {
  const launched = await desktop.launch(app.command, [...app.args], { waitForWindow: app.title, timeoutMs: 30_000 });
  try {
    const info = await findWindow(helper, app.title, launched.pid);
    const deps = { helper, settings: () => DEFAULT_SETTINGS };
    const answer = await windowRead(deps, session, { window: info.window }, new AbortController().signal);
    const text = renderWindowRead(answer);
    const rect = answer.window.rect;
    if (rect === undefined) throw new Error('window_read gave the window no rectangle');
    const screen = (await backend.capabilities()).screen;
    const x = Math.max(0, rect.x);
    const y = Math.max(0, rect.y);
    const region = { x, y, width: Math.min(screen.width, rect.x + rect.w) - x, height: Math.min(screen.height, rect.y + rect.h) - y };
    const img = await backend.capture(region);
    const rgb = downscale({ width: img.width, height: img.height, data: img.data, stride: img.stride, format: 'bgrx' }, fit.width, fit.height);
    return {
      label: app.label,
      window_rect: `${rect.w}x${rect.h}@${rect.x},${rect.y}`,
      image: `${rgb.width}x${rgb.height}`,
      image_tokens: imageTokens(rgb.width, rgb.height),
      png_kib: Math.round(encodePng(rgb).length / 1024),
      text_chars: text.length,
      text_tokens: textTokens(text),
      node_count: answer.node_count,
      truncated_by: answer.truncated_by,
    };
  } finally {
    await launched.stop();
  }
}

/** Each app in turn on the desktop (launched, read, captured, stopped), through one helper. */
export async function measureTokens(desktop: PrivateDesktop, backend: X11ScreenBackend, fit: { width: number; height: number }): Promise<TokenFigures> {
  const helper = spawnHelper(desktop.env);
  const windows: WindowTokens[] = [];
  try {
    await helper.call('hello', { client: 'bench-screen' }, { timeoutMs: 30_000 });
    const session = new AgentSession({ transport: 'http', progressiveTools: false });
    for (const app of APPS) {
      try {
        windows.push(await measureWindow(desktop, backend, helper, session, app, fit));
      } catch (error) {
        windows.push({ label: app.label, error: error instanceof Error ? error.message : String(error) });
      }
    }
  } finally {
    const timer = setTimeout(() => {
      // The helper exits when its stdin closes; if it does not, end it by its pid.
      if (helper.child.exitCode === null && helper.child.signalCode === null) helper.child.kill('SIGKILL');
    }, 5000);
    await helper.close().finally(() => clearTimeout(timer));
  }
  const lines = [
    `Tokens of one window: its screenshot at (width × height) / 750 (Anthropic's estimate for an image), fitted into ${fit.width}x${fit.height},`,
    `against its window_read compact text (default settings: max_nodes ${DEFAULT_SETTINGS.read_max_nodes}, with targets) at ceil(chars / 4) (the project's estimate):`,
  ];
  for (const w of windows) {
    if (w.error !== undefined) {
      lines.push(`  ${w.label}: FAILED: ${w.error.split('\n')[0] ?? ''}`);
      continue;
    }
    const cut = w.truncated_by !== undefined && w.truncated_by.length > 0 ? `, cut by ${w.truncated_by.join(',')}` : '';
    const r = (w.image_tokens ?? 0) / (w.text_tokens ?? 0);
    lines.push(
      `  ${w.label} (window ${w.window_rect ?? '?'}): screenshot ${w.image ?? '?'} ≈ ${w.image_tokens ?? '?'} tokens (PNG ${w.png_kib ?? '?'} KiB); ` +
        `window_read text ${w.text_chars ?? '?'} chars ≈ ${w.text_tokens ?? '?'} tokens (${w.node_count ?? '?'} elements${cut}); ` +
        `the screenshot costs ${Number.isFinite(r) ? r.toFixed(2) : '–'}× the text`,
    );
  }
  lines.push(`  (a whole-screen screenshot fitted into ${fit.width}x${fit.height} ≈ ${imageTokens(fit.width, fit.height)} tokens)`);
  return { windows, lines };
}
