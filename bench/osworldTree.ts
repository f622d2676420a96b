// `tsx bench/osworldTree.ts` (part of npm run bench): what a VM with a very large accessibility tree
// costs an osworld helper, against the same helper reading a VM with a small one. A test server on
// 127.0.0.1 answers /accessibility with OSWorld's XML: the big VM holds a spreadsheet frame of
// CELLS cells (about 19 MB of XML, as a real Calc sheet with text in every cell gave) beside a small
// editor window; the small VM holds only the editor. Each helper (the real one, from source, with
// OVERSEER_BACKEND=osworld) lists windows four times, reads the editor, reads the sheet, then idles.
// Its RSS is read from /proc after each step, and its peak (VmHWM) at the end. Prints figures,
// asserts nothing timed; results also go to .artifacts/bench-osworld-tree.json.
//
//   npx tsx bench/osworldTree.ts      (CELLS=60000 by default)

import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnHelper } from '../main/core/helperLink/helperProcess.js';
import { REPO_ROOT } from '../main/core/runtime/paths.js';

const CELLS = Number(process.env['CELLS'] ?? 60_000);
const IDLE_MS = Number(process.env['IDLE_MS'] ?? 5000);

const NS = ['state', 'attributes', 'component', 'value', 'action', 'text']
  .map((k) => `xmlns:${k.slice(0, 2)}="https://accessibility.ubuntu.example.org/ns/${k}"`)
  .join(' ');
const SHOWN = 'st:enabled="true" st:visible="true" st:showing="true" st:sensitive="true"';

function editor(): string {
  const buttons = Array.from(
    { length: 40 },
    (_, i) => `<push-button name="Button ${i}" ${SHOWN} cp:screencoord="(${10 + i}, 40)" cp:size="(30, 20)" ac:click_desc="Clicks" />`,
  ).join('');
  return `<application name="gedit"><frame name="notes.txt - gedit" ${SHOWN} st:active="true" cp:screencoord="(0, 0)" cp:size="(800, 600)">${buttons}<text name="" ${SHOWN} st:editable="true" st:multi_line="true">Hello from the editor</text></frame></application>`;
}

function sheet(cells: number): string {
  const parts: string[] = [];
  for (let i = 0; i < cells; i++) {
    const col = String.fromCharCode(65 + (i % 26));
    const row = Math.floor(i / 26) + 1;
    parts.push(
      `<table-cell name="${col}${row}" ${SHOWN} st:selectable="true" st:transient="true" cp:screencoord="(${(i % 26) * 80}, ${row * 18})" cp:size="(80, 18)" at:style="cell">Cell text ${col}${row} — Straße ${i}</table-cell>`,
    );
  }
  return `<application name="soffice"><frame name="Budget.ods - LibreOffice Calc" ${SHOWN} cp:screencoord="(0, 0)" cp:size="(1920, 1080)"><panel name="" ${SHOWN}><table name="Sheet Sheet1" ${SHOWN} st:manages_descendants="true">${parts.join('')}</table></panel></frame></application>`;
}

const tree = (apps: string): string => JSON.stringify({ AT: `<desktop-frame ${NS}>${apps}</desktop-frame>` });

async function serve(body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/accessibility') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    } else {
      res.writeHead(404);
      res.end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const statusMb = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(m?.[1] ?? Number.NaN) / 1024);
};

interface Lane {
  label: string;
  xml_mb: number;
  rss_mb: Record<string, number>;
  peak_mb: number;
  list_ms: number[];
  read_ms: Record<string, number>;
}

async function lane(label: string, apps: string): Promise<Lane> {
  const body = tree(apps);
  const { url, server } = await serve(body);
  const helper = spawnHelper({
    ...process.env,
    DISPLAY: '',
    DBUS_SESSION_BUS_ADDRESS: '',
    AT_SPI_BUS_ADDRESS: '',
    OVERSEER_BACKEND: 'osworld',
    OVERSEER_OSWORLD_URL: url,
    OVERSEER_OSWORLD_TIMEOUT_MS: '30000',
    OVERSEER_CONNECTION: 'bench',
  });
  try {
    const pid = helper.child.pid ?? 0;
    const out: Lane = { label, xml_mb: Math.round(body.length / 1024 / 1024), rss_mb: {}, peak_mb: 0, list_ms: [], read_ms: {} };
    await helper.call('hello', {}, { timeoutMs: 60_000 });
    out.rss_mb['after hello'] = statusMb(pid, 'VmRSS');
    let windows: { window: string; title: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const t = performance.now();
      windows = (await helper.call('window_list', {}, { timeoutMs: 60_000 })).windows;
      out.list_ms.push(Math.round(performance.now() - t));
    }
    out.rss_mb['after 4 lists'] = statusMb(pid, 'VmRSS');
    for (const w of windows) {
      const t = performance.now();
      await helper.call('window_read', { window: w.window }, { timeoutMs: 60_000 });
      out.read_ms[w.title] = Math.round(performance.now() - t);
      out.rss_mb[`after reading ${w.title}`] = statusMb(pid, 'VmRSS');
    }
    await new Promise((r) => setTimeout(r, IDLE_MS));
    out.rss_mb[`after ${IDLE_MS / 1000} s idle`] = statusMb(pid, 'VmRSS');
    out.peak_mb = statusMb(pid, 'VmHWM');
    return out;
  } finally {
    await helper.close();
    server.close();
  }
}

const small = await lane('small VM (editor only)', editor());
const big = await lane(`big VM (editor + ${CELLS} cells)`, editor() + sheet(CELLS));
for (const l of [small, big]) {
  console.log(`\n${l.label}: /accessibility answer ${l.xml_mb} MB`);
  for (const [step, mb] of Object.entries(l.rss_mb)) console.log(`  RSS ${step.padEnd(42)} ${String(mb).padStart(5)} MiB`);
  console.log(`  peak RSS (VmHWM)${' '.repeat(31)}${String(l.peak_mb).padStart(5)} MiB`);
  console.log(
    `  window_list ms: ${l.list_ms.join(', ')}; window_read ms: ${Object.entries(l.read_ms)
      .map(([t, ms]) => `${t} ${ms}`)
      .join(', ')}`,
  );
}
const last = (l: Lane): number => Object.values(l.rss_mb).at(-1) ?? Number.NaN;
console.log(`\nbig/small: RSS kept after idle ${(last(big) / last(small)).toFixed(2)}×, peak ${(big.peak_mb / small.peak_mb).toFixed(2)}×`);
await mkdir(`${REPO_ROOT}.artifacts`, { recursive: true });
await writeFile(`${REPO_ROOT}.artifacts/bench-osworld-tree.json`, JSON.stringify({ cells: CELLS, small, big }, null, 2));
