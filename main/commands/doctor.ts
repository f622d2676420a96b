import { missingPackages, missingPackagesHint } from '../../desktop/systemPackages.js';
import { spawnHelper } from '../core/helperLink/helperProcess.js';
import { OverseerError } from '../../protocol/index.js';

/** One finding of the doctor; a note is worth knowing but is not a problem of this desktop. */
interface Finding {
  ok: boolean;
  what: string;
  fix?: string;
  note?: true;
}

/**
 * `overseer doctor`: why a tree is empty — no display, no session bus, the accessibility bus down,
 * applications that export no tree (Chromium/Electron without renderer accessibility).
 */
export async function doctor(): Promise<number> {
  const findings: Finding[] = [];
  const env = process.env;
  findings.push(
    env['DISPLAY'] || env['WAYLAND_DISPLAY']
      ? { ok: true, what: `display: ${env['DISPLAY'] ?? env['WAYLAND_DISPLAY'] ?? ''}` }
      : { ok: false, what: 'no DISPLAY or WAYLAND_DISPLAY', fix: 'run inside a desktop session, or use `overseer serve --demo` for a private one' },
  );
  findings.push(
    env['DBUS_SESSION_BUS_ADDRESS']
      ? { ok: true, what: 'session bus address is set' }
      : { ok: false, what: 'DBUS_SESSION_BUS_ADDRESS is not set', fix: 'start from a desktop session (dbus-launch or your login session)' },
  );
  if (process.platform === 'linux') {
    // Without the AT-SPI bus there is no tree at all; the demo's packages matter only for `serve --demo`.
    if (missingPackages(['at-spi2-core'])?.length === 1)
      findings.push({ ok: false, what: 'at-spi2-core (the accessibility bus) is not installed', fix: 'npx overseer install-deps' });
    const demo = missingPackagesHint(false);
    if (demo !== undefined) findings.push({ ok: true, note: true, what: `serve --demo cannot run here: ${demo}` });
  }
  const helper = spawnHelper(env);
  try {
    const list = await helper.call('window_list', {}, { timeoutMs: 10_000 });
    findings.push({ ok: true, what: `accessibility bus reachable; ${list.windows.length} windows listed` });
    if (list.windows.length === 0)
      findings.push({
        ok: false,
        what: 'no application exposes a window over AT-SPI',
        fix: 'GTK/Qt apps need accessibility on (GTK: do not set NO_AT_BRIDGE/GTK_A11Y=none; Qt: QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1)',
      });
    for (const note of list.notes) findings.push({ ok: false, what: note, fix: 'an application did not answer in time: it may be busy or frozen' });
    for (const w of list.windows) {
      const r = await helper.call('window_read', { window: w.window, max_nodes: 50, timeout_ms: 3000 }).catch((e: unknown) => e);
      if (r instanceof OverseerError) findings.push({ ok: false, what: `"${w.title}" (${w.app}): ${r.code}: ${r.info.detail}` });
      else if (!(r instanceof Error) && typeof r === 'object' && r !== null && 'node_count' in r) {
        const n = (r as { node_count: number }).node_count;
        const chromium = /chrom|electron|code|slack|discord|teams/i.test(w.app);
        if (n < 10 && chromium)
          findings.push({
            ok: false,
            what: `"${w.title}" (${w.app}) exposes only ${n} elements`,
            fix: 'Chromium and Electron apps show web content only when started with --force-renderer-accessibility',
          });
        else findings.push({ ok: true, what: `"${w.title}" (${w.app}, pid ${w.pid}): ${n} elements readable` });
      }
    }
  } catch (error) {
    const info = error instanceof OverseerError ? `${error.code}: ${error.info.detail}` : String(error);
    findings.push({
      ok: false,
      what: `the accessibility helper could not list windows: ${info}`,
      fix: 'check that at-spi2-core is installed and the accessibility bus (org.a11y.Bus) runs in this session',
    });
  } finally {
    await helper.close();
  }
  for (const f of findings)
    process.stdout.write(`${f.note === true ? 'note' : f.ok ? 'ok  ' : 'FAIL'} ${f.what}${f.fix !== undefined ? `\n     fix: ${f.fix}` : ''}\n`);
  const bad = findings.filter((f) => !f.ok).length;
  process.stdout.write(`${bad === 0 ? 'all checks passed' : `${bad} problem${bad === 1 ? '' : 's'} found`}\n`);
  return bad === 0 ? 0 : 1;
}
