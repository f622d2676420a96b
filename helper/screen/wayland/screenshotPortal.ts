// Capture through the Screenshot portal (docs/wayland.md#capture): a non-interactive screenshot of
// the whole screen, which the portal writes as a PNG file and names by URI. The file is read,
// decoded and deleted at once (it lands in the person's Pictures folder; a capture for binding must
// not leave one there). The first screenshot asks the person (GNOME: "Allow Applications to Take
// Screenshots?"); the portal keeps the answer in its permission store, and refuses other requests
// while the question is on the screen (`consent_pending`).

import { readFile, unlink } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { fail } from '../../../protocol/index.js';
import { readPng } from '../image/pngRead.js';
import type { CapturedImage } from '../screenBackend.js';
import { option, PortalBusError, waitFor, type PortalBus, type PortalResponse } from './portalBus.js';

/** One screenshot's outcome, shared by every capture that waited on it. */
type Taken = { image: CapturedImage } | { refused: Error };

export const SCREENSHOT_PATH = 'portal:Screenshot';

const PERMISSION_STORE = {
  destination: 'org.freedesktop.impl.portal.PermissionStore',
  path: '/org/freedesktop/impl/portal/PermissionStore',
  iface: 'org.freedesktop.impl.portal.PermissionStore',
} as const;

/** What the permission store says about screenshots for applications outside a sandbox (app id ""). */
export type ScreenshotPermission = 'yes' | 'no' | 'unset' | 'unknown';

export class ScreenshotPortal {
  /**
   * The last screenshot's end (its file read and deleted). One screenshot at a time: KDE names the
   * file by the second (Screenshot_YYYYMMDD_HHMMSS.png), so two in one second share a name, and one
   * capture would read the other's image, or its half-written file, and delete it under it.
   */
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly bus: PortalBus) {}

  /** The Screenshot portal's interface version, or 0 when the portal has none. */
  async version(timeoutMs: number): Promise<number> {
    const v = await this.bus.property('org.freedesktop.portal.Screenshot', 'version', timeoutMs);
    return typeof v === 'number' ? v : 0;
  }

  /** The person's standing answer, read from the portal's permission store (never written here). */
  async permission(timeoutMs: number): Promise<ScreenshotPermission> {
    try {
      const [table] = await this.bus.call(
        PERMISSION_STORE.destination,
        PERMISSION_STORE.path,
        PERMISSION_STORE.iface,
        'Lookup',
        'ss',
        ['screenshot', 'screenshot'],
        timeoutMs,
      );
      const entry = (table as Record<string, unknown> | undefined)?.[''];
      if (!Array.isArray(entry)) return 'unset';
      return entry.includes('yes') ? 'yes' : entry.includes('no') ? 'no' : 'unset';
    } catch (error) {
      // NotFound: no entry yet (the person was never asked).
      if (error instanceof PortalBusError && /NotFound/.test(error.errorName ?? '')) return 'unset';
      return 'unknown';
    }
  }

  /** The whole screen, as the compositor shows it; waits at most `timeoutMs` (a pending consent included). */
  async capture(timeoutMs: number, signal?: AbortSignal): Promise<CapturedImage> {
    const started = performance.now();
    let abandoned = false;
    // Its turn comes after the screenshot before it is done; one the caller gave up on meanwhile is never asked for.
    const shot = this.last.then(async (): Promise<Taken> => {
      if (abandoned) return { refused: new Error('abandoned') };
      return (await this.ask(timeoutMs)).shot;
    });
    this.last = shot.catch(() => undefined);
    let taken: Taken;
    try {
      taken = await waitFor(shot, timeoutMs, signal);
    } catch (error) {
      abandoned = true;
      if (signal?.aborted === true) throw error;
      if (error instanceof PortalBusError && /no answer/.test(error.message)) {
        // The person has not answered yet: the question stays up, and the next capture waits on it.
        throw fail(
          'capture_unavailable',
          'The desktop is asking the person whether screenshots are allowed; nothing was captured. Ask again once they answered.',
          {
            reason: 'consent_pending',
          },
        );
      }
      throw error;
    }
    if ('refused' in taken) throw taken.refused;
    return { ...taken.image, captureMs: performance.now() - started };
  }

  /**
   * Makes the request. Its file is read and deleted when the answer comes, whether or not the
   * caller still waits: an answer that comes after the caller gave up (the person answered the
   * question late) leaves no file behind. A request made while the question is up is refused by
   * the portal at once; that refusal is `consent_pending`.
   */
  private async ask(timeoutMs: number): Promise<{ shot: Promise<Taken> }> {
    const pending = await this.bus
      .start(
        (token) =>
          this.bus.portal(
            'org.freedesktop.portal.Screenshot',
            'Screenshot',
            'sa{sv}',
            ['', { handle_token: option('s', token), interactive: option('b', false), modal: option('b', false) }],
            timeoutMs,
          ),
        timeoutMs,
      )
      .catch((error: unknown) => {
        throw fail('capture_unavailable', `The Screenshot portal is not reachable: ${error instanceof Error ? error.message : String(error)}`, {
          reason: 'no_portal',
        });
      });
    const shot = pending.answer.then(
      (response) => this.take(response, timeoutMs),
      (error: unknown): Taken => ({
        refused: fail('capture_unavailable', `The Screenshot portal failed: ${error instanceof Error ? error.message : String(error)}`, {
          reason: 'portal_failed',
        }),
      }),
    );
    return { shot };
  }

  /** Reads, deletes and decodes the answer's file, or says why there is none. */
  private async take(response: PortalResponse, timeoutMs: number): Promise<Taken> {
    if (response.code !== 0) return { refused: await this.refusal(response, timeoutMs) };
    const uri = response.results['uri'];
    if (typeof uri !== 'string' || !uri.startsWith('file://'))
      return { refused: fail('capture_unavailable', `The Screenshot portal answered without a file (${JSON.stringify(uri)}).`, { reason: 'portal_failed' }) };
    const file = fileURLToPath(uri);
    try {
      const image = readPng(await readFile(file));
      return {
        image: {
          width: image.width,
          height: image.height,
          stride: image.width * 4,
          pixelFormat: 'bgrx',
          data: image.data,
          origin: { x: 0, y: 0 },
          capturePath: SCREENSHOT_PATH,
          captureMs: 0,
        },
      };
    } catch (error) {
      return {
        refused: fail('capture_unavailable', `The Screenshot portal's image could not be read: ${error instanceof Error ? error.message : String(error)}`, {
          reason: 'portal_failed',
        }),
      };
    } finally {
      await unlink(file).catch(() => undefined);
    }
  }

  /** Why a screenshot was refused, in the person's terms. */
  private async refusal(response: PortalResponse, timeoutMs: number): Promise<Error> {
    const permission = await this.permission(Math.min(timeoutMs, 2000));
    if (permission === 'no')
      return fail('capture_unavailable', 'The person does not allow applications to take screenshots (the desktop portal’s permission store says no).', {
        reason: 'consent_refused',
        hint: 'the person can allow it again in Overseer’s Settings → Screen, which clears the stored answer so the desktop asks once more',
      });
    if (response.code === 1) return fail('capture_unavailable', 'The person cancelled the screenshot question.', { reason: 'consent_refused' });
    if (permission === 'unset')
      return fail(
        'capture_unavailable',
        'The desktop is asking the person whether screenshots are allowed; nothing was captured. Ask again once they answered.',
        {
          reason: 'consent_pending',
        },
      );
    return fail('capture_unavailable', `The Screenshot portal refused (response ${response.code}).`, { reason: 'portal_failed' });
  }

  /** Forgets the person's standing answer, so the desktop asks again (Settings → Screen → ask again). */
  async forget(timeoutMs: number): Promise<void> {
    await this.bus
      .call(PERMISSION_STORE.destination, PERMISSION_STORE.path, PERMISSION_STORE.iface, 'DeletePermission', 'sss', ['screenshot', 'screenshot', ''], timeoutMs)
      .catch((error: unknown) => {
        if (error instanceof PortalBusError && /NotFound/.test(error.errorName ?? '')) return;
        throw error;
      });
  }
}
