// Small D-Bus helpers for the private desktop. They use dbus-next's low-level
// Message API: no introspection round trips, and every call has a deadline,
// so a frozen or vanished peer can never wedge the desktop's own code.

import { setTimeout as sleep } from 'node:timers/promises';
import { Message, MessageFlag, sessionBus, type MessageBus } from 'dbus-next';
import { withTimeout } from '../base/timeout.js';

const DBUS_CALL_TIMEOUT_MS = 1000;

/** A reference to a remote object, as AT-SPI returns it: the "(so)" pair. */
export interface ObjectRef {
  busName: string;
  path: string;
}

/** Call one method and return the reply body; rejects when no answer comes within timeoutMs (default 1 s). */
export async function dbusCall(
  bus: MessageBus,
  destination: string,
  objectPath: string,
  iface: string,
  member: string,
  options: { signature?: string; body?: unknown[]; timeoutMs?: number; noAutoStart?: boolean } = {},
): Promise<unknown[]> {
  const message = new Message({
    destination,
    path: objectPath,
    interface: iface,
    member,
    signature: options.signature ?? '',
    body: options.body ?? [],
    ...(options.noAutoStart === true ? { flags: MessageFlag.NO_AUTO_START } : {}),
  });
  const reply = await withTimeout(
    bus.call(message),
    options.timeoutMs ?? DBUS_CALL_TIMEOUT_MS,
    () => new Error(`${destination} ${objectPath} ${iface}.${member}: no answer within ${options.timeoutMs ?? DBUS_CALL_TIMEOUT_MS} ms`),
  );
  const body: unknown = reply?.body;
  return Array.isArray(body) ? (body as unknown[]) : [];
}

/** Unwrap a dbus-next Variant ({ signature, value }); anything else is returned as is. */
export function variantValue(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && 'value' in value && 'signature' in value) {
    return (value as { value: unknown }).value;
  }
  return value;
}

/** Read an "a(so)" reply value as object references, skipping malformed entries. */
export function asRefs(value: unknown): ObjectRef[] {
  if (!Array.isArray(value)) return [];
  const refs: ObjectRef[] = [];
  for (const item of value as unknown[]) {
    if (Array.isArray(item) && typeof item[0] === 'string' && typeof item[1] === 'string') {
      refs.push({ busName: item[0], path: item[1] });
    }
  }
  return refs;
}

/** The AT-SPI interface every accessible object has. */
export const ACCESSIBLE = 'org.a11y.atspi.Accessible';

/** One property of an accessible object (`Name`, `ChildCount`; another interface's, such as Action's `NActions`), unwrapped, within 3 s. */
export async function accessibleProperty(bus: MessageBus, ref: ObjectRef, property: string, iface = ACCESSIBLE): Promise<unknown> {
  const [value] = await dbusCall(bus, ref.busName, ref.path, 'org.freedesktop.DBus.Properties', 'Get', {
    signature: 'ss',
    body: [iface, property],
    timeoutMs: 3000,
  });
  return variantValue(value);
}

/**
 * Connect to a bus and wait for the Hello reply. A daemon's socket file
 * appears at bind(), a moment before listen(): a connection attempt in that
 * window is refused, so retry until `timeoutMs`.
 */
export async function connectBus(address: string, timeoutMs: number): Promise<MessageBus> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'timeout';
  for (;;) {
    const bus = sessionBus({ busAddress: address });
    const outcome = await new Promise<true | string>((resolve) => {
      const timer = setTimeout(() => resolve('no Hello reply within 2000 ms'), 2000);
      bus.once('connect', () => {
        clearTimeout(timer);
        resolve(true);
      });
      bus.on('error', (error: unknown) => {
        clearTimeout(timer);
        resolve(error instanceof Error ? error.message : String(error));
      });
    });
    // Keep an error listener for good: a bus that goes away (e.g. during
    // stop) must not crash the test process.
    bus.on('error', () => undefined);
    if (outcome === true) return bus;
    lastError = outcome;
    try {
      bus.disconnect();
    } catch {
      // never connected
    }
    if (Date.now() > deadline) throw new Error(`cannot connect to ${address}: ${lastError}`);
    await sleep(10);
  }
}
