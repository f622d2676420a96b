// GNOME's monitors, from org.gnome.Mutter.DisplayConfig.GetCurrentState (which any client of the
// session may read): each logical monitor's place, scale and whether it is primary, its size from
// the current mode of its first monitor. Absent on other desktops: then the backend knows the
// screen only from a screenshot's size.

import type { Monitor } from '../screenBackend.js';
import type { PortalBus } from './portalBus.js';

const DISPLAY_CONFIG = {
  destination: 'org.gnome.Mutter.DisplayConfig',
  path: '/org/gnome/Mutter/DisplayConfig',
  iface: 'org.gnome.Mutter.DisplayConfig',
} as const;
/** Transforms 1, 3, 5 and 7 turn a monitor a quarter: its width and height swap. */
const QUARTER_TURNS = new Set([1, 3, 5, 7]);

type Mode = [string, number, number, number, number, number[], Record<string, unknown>];
type PhysicalMonitor = [[string, string, string, string], Mode[], Record<string, unknown>];
type LogicalMonitor = [number, number, number, number, boolean, Array<[string, string, string, string]>, Record<string, unknown>];

/** The logical monitors in physical pixels; undefined where GNOME's DisplayConfig is not on the bus. */
export async function gnomeMonitors(bus: PortalBus, timeoutMs: number): Promise<Monitor[] | undefined> {
  let reply: unknown[];
  try {
    reply = await bus.call(DISPLAY_CONFIG.destination, DISPLAY_CONFIG.path, DISPLAY_CONFIG.iface, 'GetCurrentState', '', [], timeoutMs);
  } catch {
    return undefined;
  }
  return monitorsOfState(reply);
}

/** GetCurrentState's answer as monitors (exported for its unit test). */
export function monitorsOfState(reply: unknown[]): Monitor[] {
  const [, physical, logical, properties] = reply as [number, PhysicalMonitor[], LogicalMonitor[], Record<string, unknown>];
  const layoutMode = Number((properties['layout-mode'] as { value?: unknown } | undefined)?.value ?? 1);
  const modes = new Map<string, Mode | undefined>();
  for (const [spec, monitorModes] of physical) {
    const current = monitorModes.find((m) => (m[6]['is-current'] as { value?: unknown } | undefined)?.value === true);
    modes.set(spec[0], current);
  }
  return logical.flatMap(([x, y, scale, transform, primary, specs]): Monitor[] => {
    const connector = specs[0]?.[0] ?? '';
    const mode = modes.get(connector);
    if (mode === undefined) return [];
    let [width, height] = [mode[1], mode[2]];
    if (QUARTER_TURNS.has(transform)) [width, height] = [height, width];
    // Layout mode 1 (logical): places are in logical pixels, so scale them to physical ones.
    const factor = layoutMode === 1 ? scale : 1;
    return [{ name: connector, primary, scale, x: Math.round(x * factor), y: Math.round(y * factor), width, height }];
  });
}
