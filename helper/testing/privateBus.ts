// For the portal tests: a private dbus-daemon in a temporary folder, and raw connections to it (a
// stand-in portal's, or a spoofer's). Nothing of the product uses it.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import dbus from 'dbus-next';

export type Bus = dbus.MessageBus & { name?: string | null };

export interface PrivateBus {
  address: string;
  dir: string;
  /** A connection with its unique name known. */
  connect(): Promise<Bus>;
  stop(): void;
}

export async function startPrivateBus(prefix: string): Promise<PrivateBus> {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const address = `unix:path=${path.join(dir, 'bus')}`;
  const daemon = spawn('dbus-daemon', ['--session', '--nofork', '--nopidfile', `--address=${address}`], { stdio: 'ignore' });
  for (let i = 0; !existsSync(path.join(dir, 'bus')) && i < 400; i++) await sleep(10);
  return {
    address,
    dir,
    async connect() {
      const bus = dbus.sessionBus({ busAddress: address }) as Bus;
      await new Promise<void>((resolve, reject) => {
        bus.once('connect', () => resolve());
        bus.once('error', reject);
      });
      for (let i = 0; (bus.name ?? '') === '' && i < 200; i++) await sleep(5);
      return bus;
    },
    stop() {
      daemon.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
