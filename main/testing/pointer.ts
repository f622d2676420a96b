import { spawnSync } from 'node:child_process';

/**
 * Moves the pointer of a test desktop (through GDK, as a person's mouse would). The test desktop has
 * no window manager, so the keyboard focus follows the pointer: this also gives a window the keys.
 */
export function warp(display: string, x: number, y: number): void {
  const script = `import gi; gi.require_version('Gdk','3.0'); from gi.repository import Gdk; d=Gdk.Display.get_default(); d.get_default_seat().get_pointer().warp(d.get_default_screen(), ${x}, ${y}); d.sync()`;
  const r = spawnSync('/usr/bin/python3', ['-c', script], { env: { ...process.env, DISPLAY: display } });
  if (r.status !== 0) throw new Error(`warp failed: ${r.stderr.toString()}`);
}
