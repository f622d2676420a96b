import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ElementFindAnswer, PendingApproval, Receipt, WindowListAnswer, WindowReadAnswer } from '../../protocol/index.js';
import { startPrivateDesktop, type PrivateDesktop } from '../../desktop/privateDesktop.js';
import { writeSpreadsheet, writeTextDocument } from '../../e2e/realApps/documents.js';
import { peerCell, peerPing, peerRead, peerWatch, type PeerWindow } from '../../e2e/realApps/peer.js';
import { startOffice, type LaunchedOffice } from '../../e2e/realApps/realApps.js';
import { realAppsLayout, startRealAppsWindowManager } from '../../e2e/realApps/windows.js';
import { UiClient, httpClient, removeDataDir, serve, tool, toolJson, type Served } from '../testing/serveHarness.js';
import { expectCard, type CardOf } from '../testing/cards.js';

const SCREEN = { width: 1280, height: 800 };
const PARAGRAPHS = ['Shopping list', 'Please remember the milk.', ...Array.from({ length: 12 }, (_, i) => `Line ${i + 1}: lorem ipsum dolor sit amet.`)];

/** CPU time of a process so far, in clock ticks (fields 14 and 15 of /proc/<pid>/stat). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * LibreOffice (GTK 3 VCL plugin) through the real supervisor, started once for Calc and Writer
 * (docs/compatibility.md#libreoffice): soffice keeps answering another client while the sheet is
 * read, found in and written to; the visible sheet reads with its addresses and values; a cell is
 * set and a Writer paragraph found by its text and edited, each with a person's approval, every
 * effect read back by an independent pyatspi client.
 */
describe('LibreOffice Calc and Writer, through the real supervisor', () => {
  let desktop: PrivateDesktop;
  let s: Served;
  let agent: Client;
  let ui: UiClient;
  let office: LaunchedOffice;
  let calc: PeerWindow;
  let writer: PeerWindow;
  const ids = new Map<string, string>();
  const win = (w: PeerWindow): string => ids.get(w.title) ?? assert.fail(`${w.title} is listed`);

  const approved = async (args: Record<string, unknown>): Promise<{ card: CardOf<'element'>; receipt: Receipt }> => {
    const since = ui.mark();
    const answer = toolJson<Receipt>(agent, 'element_act', args, { timeout: 120_000 });
    const list = await ui.waitFor<PendingApproval[]>('pending', (l) => l.length > 0, 30_000, since);
    const card = expectCard(list[0], 'element');
    await ui.command('approve', { approval_id: card.approval_id });
    const receipt = await answer;
    assert.equal(receipt.decision?.verdict, 'approved', JSON.stringify(receipt.refusal ?? receipt.error));
    return { card, receipt };
  };
  const readCalc = (extra: Record<string, unknown> = {}): Promise<WindowReadAnswer> =>
    toolJson<WindowReadAnswer>(agent, 'window_read', { window: win(calc), format: 'flat', max_nodes: 5000, timeout_ms: 15_000, ...extra });

  before(async () => {
    desktop = await startPrivateDesktop(SCREEN);
    await startRealAppsWindowManager(desktop, SCREEN);
    const place = realAppsLayout(SCREEN);
    const sheet = writeSpreadsheet(desktop.dir, { rows: 300 });
    const doc = writeTextDocument(desktop.dir, PARAGRAPHS);
    office = await startOffice(desktop, [sheet, doc], { places: [place.calc, place.writer] });
    calc = { app: office.appName, title: office.windows[0]?.title ?? '' };
    writer = { app: office.appName, title: office.windows[1]?.title ?? '' };
    s = await serve(desktop.env);
    agent = await httpClient(s, 'office-agent');
    ui = await UiClient.connect(s);
    for (const w of (await toolJson<WindowListAnswer>(agent, 'window_list')).windows) ids.set(w.title, w.window);
  });
  after(async () => {
    ui?.close();
    await agent?.close().catch(() => {});
    await s?.kill();
    await desktop?.stop();
    if (s !== undefined) await removeDataDir(s.dataDir);
  });

  it('lists Calc and Writer from the one soffice', () => {
    assert.equal(calc.title, 'sheet.fods - LibreOffice Calc');
    assert.equal(writer.title, 'doc.fodt - LibreOffice Writer');
    assert.ok(ids.has(calc.title) && ids.has(writer.title), [...ids.keys()].join(' | '));
  });

  it('reads the visible sheet: each cell by its address with its value, as the independent client reads them, and says it read the visible part', async () => {
    const r = await readCalc();
    const cells = (r.elements ?? []).filter((e) => e.role === 'cell');
    const by = new Map(cells.map((c) => [c.name, c.value]));
    assert.equal(by.get('A1'), 'Item');
    assert.equal(by.get('B1'), 'Qty');
    assert.equal(by.get('A3'), 'item2');
    assert.equal(by.get('C3'), '3');
    // The cells a window this size shows (a row of columns A–C at least, a few rows), never the sheet.
    assert.ok(cells.length >= 12 && cells.length <= 2500, `${cells.length} cells`);
    // A few, each asked of the application alone by the independent client.
    for (const c of [cells[0], cells[4], cells[cells.length - 1]].filter((x) => x !== undefined)) {
      const at = /^([A-Z]+)(\d+)$/.exec(c.name ?? '');
      assert.ok(at !== null, `a cell is named by its address: ${c.name}`);
      const column = [...(at[1] as string)].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
      const peer = await peerCell(desktop, calc, Number(at[2]) - 1, column);
      assert.equal(peer.name, c.name);
      assert.equal(c.value ?? '', peer.text ?? '', `${c.name}: the product reads what the independent client reads`);
    }
    assert.ok(r.truncated_by.includes('visible_part'), JSON.stringify(r.truncated_by));
    assert.ok(
      r.notes.some((n) =>
        /^visible_part: table "Sheet Sheet1" manages its descendants \(1,048,576 rows × 16,384 columns\): only its visible cells A1:[A-Z]+\d+ were read/.test(
          n,
        ),
      ),
      r.notes.join('\n'),
    );
  });

  it('keeps soffice answering another client while it reads, finds and writes the sheet, and afterwards', async () => {
    const ticks = cpuTicks(office.pid);
    const watching = peerWatch(desktop, office.appName, { forMs: 9000, intervalMs: 150, timeoutMs: 3000 });
    const started = Date.now();
    for (let i = 0; Date.now() - started < 7000; i++) {
      await readCalc();
      const far = await toolJson<ElementFindAnswer>(agent, 'element_find', { window: win(calc), selector: { value_contains: 'item250' } });
      assert.equal(far.searched_whole_window, false, 'a cell out of view is never answered "not found"');
      assert.match(far.reason ?? '', /visible_part/);
      if (i === 0) await tool(agent, 'window_read', { window: win(calc) });
    }
    const watch = await watching;
    assert.equal(watch.failures, 0, JSON.stringify(watch));
    assert.ok((watch.max_ms ?? Infinity) < 2500, `the slowest answer took ${String(watch.max_ms)} ms: ${JSON.stringify(watch)}`);
    const after = await peerPing(desktop, office.appName, 3000);
    assert.ok(after.ok, JSON.stringify(after));
    // Idle again: not the 55–75 % of a CPU a stuck soffice burns (measured before the fix, docs/compatibility.md).
    const idleFrom = cpuTicks(office.pid);
    await new Promise((r) => setTimeout(r, 2000));
    const busy = (cpuTicks(office.pid) - idleFrom) / 200;
    assert.ok(busy < 0.3, `soffice used ${Math.round(busy * 100)} % of a CPU after the reads (it used ${cpuTicks(office.pid) - ticks} ticks in all)`);
  });

  it('sets cells with a person’s approval, typed as a person would, read back by the independent client', async () => {
    // A selector scan cut to the visible part cannot prove its match is the only one: refused before anyone is asked; a find's target acts.
    const bySelector = await toolJson<Receipt>(agent, 'element_act', {
      window: win(calc),
      selector: { role: 'cell', name: 'D2' },
      action: 'set_value',
      text: 'total',
    });
    assert.equal(bySelector.outcome, 'refused');
    assert.equal(bySelector.refusal?.code, 'incomplete_scan');
    const found = await toolJson<ElementFindAnswer>(agent, 'element_find', { window: win(calc), selector: { role: 'cell', name: 'D2' } });
    assert.equal(found.match_count, 1);
    const target = found.matches[0]?.target ?? '';
    const set = await approved({ target, action: 'set_value', text: 'Total: 42' });
    assert.match(set.card.method ?? '', /^typed: .*focus the cell, type over it, press Enter/);
    assert.equal(set.receipt.outcome, 'completed', JSON.stringify(set.receipt.error));
    assert.equal(set.receipt.verification, 'verified', JSON.stringify(set.receipt.after));
    assert.equal((await peerCell(desktop, calc, 1, 3)).text, 'Total: 42');
    const again = await toolJson<ElementFindAnswer>(agent, 'element_find', { window: win(calc), selector: { role: 'cell', name: 'B3' } });
    const number = await approved({ target: again.matches[0]?.target ?? '', action: 'set_value', text: '7.5' });
    assert.equal(number.card.current_value, '2');
    assert.equal(number.receipt.verification, 'verified');
    assert.equal((await peerCell(desktop, calc, 2, 1)).text, '7.5');
  });

  it('reads a Writer document’s paragraphs within the default budget, before the toolbars, with an honest token count', async () => {
    const r = await tool(agent, 'window_read', { window: win(writer) });
    assert.match(r.text, /paragraph ="Please remember the milk\."/);
    const answer = r.structured as unknown as WindowReadAnswer;
    const cut = answer.notes.find((n) => n.startsWith('max_tokens'));
    if (cut !== undefined) {
      const said = Number(/about (\d+) tokens/.exec(cut)?.[1]);
      assert.ok(Math.abs(said - r.text.length / 4) < r.text.length / 8, `said ${said} tokens for ${r.text.length} characters sent`);
    }
    const peer = await peerRead(desktop, writer);
    const paragraphs = peer.filter((e) => e.role === 'paragraph').map((e) => e.text ?? '');
    for (const p of paragraphs.filter((t) => t !== '')) assert.ok(r.text.includes(JSON.stringify(p)), `the product shows ${p}`);
  });

  it('finds a Writer paragraph by its text and edits it with a person’s approval', async () => {
    const found = await toolJson<ElementFindAnswer>(agent, 'element_find', { window: win(writer), selector: { value_contains: 'remember the milk' } });
    assert.equal(found.match_count, 1, JSON.stringify(found));
    assert.equal(found.searched_whole_window, true);
    const { card, receipt } = await approved({ target: found.matches[0]?.target ?? '', action: 'set_value', text: 'Please remember the oat milk.' });
    assert.equal(card.current_value, 'Please remember the milk.');
    assert.equal(card.method, undefined);
    assert.equal(receipt.path, 'atspi:EditableText.SetTextContents');
    assert.equal(receipt.verification, 'verified');
    const peer = await peerRead(desktop, writer);
    assert.ok(
      peer.some((e) => e.role === 'paragraph' && e.text === 'Please remember the oat milk.'),
      'the independent client reads the new paragraph',
    );
  });
});
