/** Where a dialog goes so that it covers nothing a repeated click could land on (docs/supervision.md#allow-for-the-session). */

/** The dialog's top so that it covers none of `r` in a window `height` tall, or undefined when it fits neither above nor below. */
export function topAvoiding(r: { top: number; bottom: number }, dialogHeight: number, height: number, margin = 8): number | undefined {
  if (r.top - margin - dialogHeight >= margin) return r.top - margin - dialogHeight;
  if (r.bottom + margin + dialogHeight <= height - margin) return r.bottom + margin;
  return undefined;
}
