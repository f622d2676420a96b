// One D-Bus method call with a deadline, as every D-Bus client of the helper makes it (the AT-SPI
// backend's calls to applications, the Wayland backend's calls to the portals): a reply that never
// comes fails the call at its deadline and leaves nothing waiting for it.
import type dbus from 'dbus-next';
import { withTimeout } from '../../../base/timeout.js';

/** A bus as dbus-next keeps it, with the reply handlers it does not expose. */
export type HandlerBus = dbus.MessageBus & { _methodReturnHandlers?: Record<number, unknown> };

/**
 * Sends `msg` and waits at most `ms` for its reply; past it, rejects with `timedOut()` and drops
 * the bus's handler for that reply, so one that never comes does not leak. `sent` is told once the
 * message is handed to the bus (before the wait).
 */
export function callWithin(bus: HandlerBus, msg: dbus.Message, ms: number, timedOut: () => Error, sent?: () => void): Promise<dbus.Message | null> {
  const pending = bus.call(msg);
  sent?.();
  return withTimeout(pending, ms, () => {
    if (msg.serial !== null) delete bus._methodReturnHandlers?.[msg.serial];
    return timedOut();
  });
}
