// The screen tier's answers as compact text (docs/tools.md#screen-tier): one line per
// fact, the transform exact, so an agent can map image pixels to the screen and back.
import type { CapabilitiesAnswer, CursorAnswer, ScreenInputDetail, ScreenshotAnswer } from '../../../protocol/index.js';

export function renderScreenshot(a: ScreenshotAnswer): string {
  const lines = [
    `screenshot ${a.screenshot}: ${a.width}x${a.height} image; physical = (${a.origin.x},${a.origin.y}) + image × (${a.scale_x}, ${a.scale_y}); ${a.capture_path}; ~${a.approx_tokens} tokens`,
  ];
  if (a.window !== undefined) lines.push(`window: ${a.window}`);
  if (a.masked.length > 0) lines.push(`masked (supervisor or excluded apps): ${a.masked.map((m) => `${m.x},${m.y} ${m.w}x${m.h}`).join('; ')}`);
  return lines.join('\n');
}

export function renderCapabilities(c: CapabilitiesAnswer): string {
  const path = (p: CapabilitiesAnswer['capture']): string =>
    `${p.available ? 'yes' : 'no'} (${p.path})${p.degradations.length > 0 ? ` degraded: ${p.degradations.join(', ')}` : ''}`;
  const lines = [
    `session: ${c.session} on ${c.platform}${c.connection !== '' ? `, ${c.connection}` : ''}`,
    `capture: ${path(c.capture)}`,
    `input: ${path(c.input)}`,
    `screen: ${c.screen.width}x${c.screen.height} at ${c.screen.x},${c.screen.y}`,
    ...c.monitors.map((m) => `monitor ${m.name}${m.primary ? ' (primary)' : ''}: ${m.width}x${m.height} at ${m.x},${m.y} scale ${m.scale}`),
    `accessibility: ${c.accessibility.backend}${c.accessibility.available ? '' : ' (unavailable)'}`,
  ];
  if (c.reason !== undefined) lines.push(`why not: ${c.reason}`);
  return lines.join('\n');
}

export function renderCursor(c: CursorAnswer): string {
  return `cursor: physical ${c.x},${c.y}${c.image !== undefined ? `; image ${c.image.x},${c.image.y} of ${c.screenshot ?? ''}` : ''}`;
}

/** A screen input's where and what, for its receipt. */
export function screenLine(d: ScreenInputDetail): string {
  const parts: string[] = [];
  if (d.point !== undefined) parts.push(`image ${d.point.x},${d.point.y}${d.screenshot !== undefined ? ` of ${d.screenshot}` : ''}`);
  if (d.physical !== undefined) parts.push(`physical ${d.physical.x},${d.physical.y}`);
  if (d.to_physical !== undefined) parts.push(`to physical ${d.to_physical.x},${d.to_physical.y}`);
  if (d.button !== undefined) parts.push(`${d.button}${d.count !== undefined && d.count > 1 ? ` ×${d.count}` : ''}`);
  if (d.direction !== undefined) parts.push(`${d.direction} ×${d.amount ?? 3}`);
  if (d.keys !== undefined) parts.push(`keys ${d.keys}${d.duration_ms !== undefined ? ` for ${d.duration_ms} ms` : ''}`);
  if (d.window !== undefined) parts.push(`in "${d.window.title}" (${d.window.app})`);
  if (d.element !== undefined) parts.push(`on ${d.element.role}${d.element.name !== undefined ? ` "${d.element.name}"` : ''}`);
  return parts.join('; ');
}
