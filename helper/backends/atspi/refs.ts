/** The common prefix of AT-SPI object paths; keys abbreviate it to `~` to keep answers lean. */
const PREFIX = '/org/a11y/atspi/accessible/';
export const NULL_PATH = '/org/a11y/atspi/null';
export const ROOT_PATH = '/org/a11y/atspi/accessible/root';

/** An AT-SPI object reference: unique bus name + object path. */
export interface Ref {
  bus: string;
  path: string;
}

/** The element key of a reference: `<bus>~<id>` (or `<bus><path>` for other paths). */
export function keyOf(bus: string, path: string): string {
  return path.startsWith(PREFIX) ? `${bus}~${path.slice(PREFIX.length)}` : `${bus}${path}`;
}

/** Parses a key back into its reference; undefined when it is not an AT-SPI key. */
export function refOf(key: string): Ref | undefined {
  const m = /^(:[0-9.]+)(~|\/)(.+)$/.exec(key);
  if (m === null) return undefined;
  const [, bus, sep, rest] = m;
  if (bus === undefined || rest === undefined) return undefined;
  return { bus, path: sep === '~' ? `${PREFIX}${rest}` : `/${rest}` };
}

/** Reads a `(so)` D-Bus struct. */
export function asRef(value: unknown): Ref | undefined {
  if (!Array.isArray(value) || typeof value[0] !== 'string' || typeof value[1] !== 'string') return undefined;
  return { bus: value[0], path: value[1] };
}
