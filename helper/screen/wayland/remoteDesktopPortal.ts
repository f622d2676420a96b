// Pointer and keyboard through the RemoteDesktop portal (docs/wayland.md#input). One session per
// helper, started on the first input: the desktop asks the person once (GNOME: "Remote desktop",
// a monitor to share and "Allow remote interaction"), and the session lasts until the helper
// stops or the person stops it (the sharing indicator in the top bar). Where the portal can keep
// the consent (RemoteDesktop version 2, persist_mode 2), its restore token is kept in the data dir
// and the next helper starts without a dialog; version 1 (xdg-desktop-portal before 1.17) cannot,
// and capabilities say so. The pointer moves in the coordinates of the shared monitor's stream.

import { fail } from '../../../protocol/index.js';
import type { ScreenRect } from '../screenBackend.js';
import { option, PortalBusError, waitFor, type PortalBus, type PortalResponse } from './portalBus.js';

export const INPUT_PATH = 'portal:RemoteDesktop';

const RD = 'org.freedesktop.portal.RemoteDesktop';
const SC = 'org.freedesktop.portal.ScreenCast';
const DEVICE_KEYBOARD = 1;
const DEVICE_POINTER = 2;
const SOURCE_MONITOR = 1;
/** How long the compositor is given to make the session's virtual devices before the first real input. */
const WARM_UP_MS = 250;
/** Keysym of the left Shift: the warm-up's key (GNOME drops a session's first key; a lone Shift is the least a key can do). */
const SHIFT_L = 0xffe1;

/** One shared monitor: the stream's PipeWire node and its place in the compositor's layout. */
export interface SharedStream extends ScreenRect {
  node: number;
}

/** Where the restore token lives (a 0600 file in the data dir), or nowhere. */
export interface TokenStore {
  load(): string | undefined;
  save(token: string | undefined): void;
}

/** The person's answer so far, for `capabilities`. */
export type ConsentState = 'not_asked' | 'asking' | 'granted' | 'refused' | 'view_only' | 'stopped';

interface Live {
  handle: string;
  streams: SharedStream[];
}

export class RemoteDesktopPortal {
  private live: Promise<Live> | undefined;
  /** Why input is refused until the person asks again (they cancelled, shared view only, or stopped the session). */
  private refusal: { state: ConsentState; error: Error } | undefined;
  private asking = false;
  private granted = false;

  constructor(
    private readonly bus: PortalBus,
    private readonly tokens: TokenStore,
    private readonly log: (line: string) => void,
  ) {}

  /** The RemoteDesktop interface's version, or 0 when the portal has no RemoteDesktop. */
  async version(timeoutMs: number): Promise<number> {
    const v = await this.bus.property(RD, 'version', timeoutMs);
    return typeof v === 'number' ? v : 0;
  }

  /** Whether the portal's backend offers a keyboard and a pointer. */
  async deviceTypes(timeoutMs: number): Promise<number> {
    const v = await this.bus.property(RD, 'AvailableDeviceTypes', timeoutMs);
    return typeof v === 'number' ? v : 0;
  }

  state(): ConsentState {
    if (this.refusal !== undefined) return this.refusal.state;
    if (this.asking) return 'asking';
    return this.granted ? 'granted' : 'not_asked';
  }

  /** Forgets a refusal and the kept token: the next input asks the person again. */
  forget(): void {
    this.refusal = undefined;
    this.tokens.save(undefined);
  }

  /** The running session, started (and the person asked) if there is none; waits at most `timeoutMs` for their answer. */
  async session(timeoutMs: number, signal?: AbortSignal): Promise<Live> {
    if (this.refusal !== undefined) throw this.refusal.error;
    this.live ??= this.start(timeoutMs);
    const starting = this.live;
    try {
      return await waitFor(starting, timeoutMs, signal);
    } catch (error) {
      if (signal?.aborted === true) throw error;
      if (error instanceof PortalBusError && /no answer/.test(error.message)) {
        // The dialog stays up; the next input waits on the same session.
        throw fail('input_unavailable', 'The desktop is asking the person to allow remote interaction; nothing was sent. Try again once they answered.', {
          reason: 'consent_pending',
        });
      }
      throw error;
    }
  }

  private async start(timeoutMs: number): Promise<Live> {
    const version = await this.version(timeoutMs).catch(() => 0);
    if (version === 0) {
      this.live = undefined;
      throw fail(
        'input_unavailable',
        'This desktop has no RemoteDesktop portal (org.freedesktop.portal.RemoteDesktop), so nothing can send pointer or key input.',
        {
          reason: 'no_remote_desktop_portal',
        },
      );
    }
    let handle = '';
    try {
      const created = await this.bus.request(
        (token) =>
          this.bus.portal(
            RD,
            'CreateSession',
            'a{sv}',
            [{ handle_token: option('s', token), session_handle_token: option('s', `overseer${process.pid}`) }],
            timeoutMs,
          ),
        timeoutMs,
      );
      const made = created.results['session_handle'];
      handle = typeof made === 'string' ? made : '';
      if (created.code !== 0 || handle === '') throw new PortalBusError(`CreateSession answered ${created.code}`);
      await this.bus.onSessionClosed(handle, () => this.closedByDesktop(handle), timeoutMs);
      const restore = version >= 2 ? this.tokens.load() : undefined;
      const devices = await this.bus.request(
        (token) =>
          this.bus.portal(
            RD,
            'SelectDevices',
            'oa{sv}',
            [
              handle,
              {
                handle_token: option('s', token),
                types: option('u', DEVICE_KEYBOARD | DEVICE_POINTER),
                ...(version >= 2 ? { persist_mode: option('u', 2) } : {}),
                ...(restore !== undefined ? { restore_token: option('s', restore) } : {}),
              },
            ],
            timeoutMs,
          ),
        timeoutMs,
      );
      if (devices.code !== 0) throw new PortalBusError(`SelectDevices answered ${devices.code}`);
      const sources = await this.bus.request(
        (token) =>
          this.bus.portal(
            SC,
            'SelectSources',
            'oa{sv}',
            [handle, { handle_token: option('s', token), types: option('u', SOURCE_MONITOR), multiple: option('b', true) }],
            timeoutMs,
          ),
        timeoutMs,
      );
      if (sources.code !== 0) throw new PortalBusError(`SelectSources answered ${sources.code}`);
    } catch (error) {
      this.live = undefined;
      if (handle !== '') this.closeSession(handle);
      throw fail('input_unavailable', `The RemoteDesktop portal could not make a session: ${error instanceof Error ? error.message : String(error)}`, {
        reason: 'portal_failed',
      });
    }
    // Start shows the dialog: its answer may take as long as the person takes.
    this.asking = true;
    let started: PortalResponse;
    try {
      const pending = await this.bus.start(
        (token) => this.bus.portal(RD, 'Start', 'osa{sv}', [handle, '', { handle_token: option('s', token) }], timeoutMs),
        timeoutMs,
      );
      started = await pending.answer;
    } catch (error) {
      this.asking = false;
      this.live = undefined;
      this.closeSession(handle);
      throw fail('input_unavailable', `The RemoteDesktop portal failed to start: ${error instanceof Error ? error.message : String(error)}`, {
        reason: 'portal_failed',
      });
    }
    this.asking = false;
    if (started.code !== 0) {
      this.closeSession(handle);
      return this.refuse(
        'refused',
        fail('input_unavailable', 'The person did not allow remote interaction; nothing was sent.', {
          reason: 'consent_refused',
          hint: 'the person can ask again from Overseer’s Settings → Screen',
        }),
      );
    }
    const granted = Number(started.results['devices'] ?? 0);
    if ((granted & DEVICE_POINTER) === 0 || (granted & DEVICE_KEYBOARD) === 0) {
      this.closeSession(handle);
      return this.refuse(
        'view_only',
        fail('input_unavailable', 'The person shared the screen without “Allow remote interaction”; nothing was sent.', {
          reason: 'consent_view_only',
          hint: 'the person can ask again from Overseer’s Settings → Screen, and tick “Allow remote interaction”',
        }),
      );
    }
    const streams = parseStreams(started.results['streams']);
    if (streams.length === 0) {
      this.closeSession(handle);
      return this.refuse(
        'refused',
        fail('input_unavailable', 'The session shares no monitor, so the pointer has no place to move to.', { reason: 'no_stream' }),
      );
    }
    const token = started.results['restore_token'];
    if (typeof token === 'string' && token !== '') this.tokens.save(token);
    this.granted = true;
    this.log(`[wayland] remote desktop session started: ${streams.map((s) => `node ${s.node} at ${s.x},${s.y} ${s.width}x${s.height}`).join('; ')}`);
    await this.warmUp(handle);
    return { handle, streams };
  }

  /** GNOME makes a session's virtual devices on their first use and drops what comes meanwhile: use them once, harmlessly, and wait. */
  private async warmUp(handle: string): Promise<void> {
    await this.bus.portal(RD, 'NotifyPointerMotion', 'oa{sv}dd', [handle, {}, 0, 0], 2000).catch(() => undefined);
    await this.bus.portal(RD, 'NotifyKeyboardKeysym', 'oa{sv}ib', [handle, {}, SHIFT_L, true], 2000).catch(() => undefined);
    await this.bus.portal(RD, 'NotifyKeyboardKeysym', 'oa{sv}ib', [handle, {}, SHIFT_L, false], 2000).catch(() => undefined);
    await new Promise((r) => setTimeout(r, WARM_UP_MS));
  }

  private refuse(state: ConsentState, error: Error): never {
    this.refusal = { state, error };
    this.live = undefined;
    throw error;
  }

  private closedByDesktop(handle: string): void {
    void this.live?.then(
      (live) => {
        if (live.handle !== handle) return;
        this.log('[wayland] the remote desktop session was closed (the person stopped sharing, or the desktop ended it)');
        this.refusal = {
          state: 'stopped',
          error: fail('input_unavailable', 'The person stopped the remote desktop session; nothing was sent.', {
            reason: 'consent_stopped',
            hint: 'the person can ask again from Overseer’s Settings → Screen',
          }),
        };
        this.live = undefined;
      },
      () => undefined,
    );
  }

  private closeSession(handle: string): void {
    void this.bus.call('org.freedesktop.portal.Desktop', handle, 'org.freedesktop.portal.Session', 'Close', '', [], 2000).catch(() => undefined);
  }

  /** Calls one Notify method on the running session; a refusal by the portal is input_unavailable. */
  async notify(member: string, signature: string, args: unknown[], timeoutMs: number, signal?: AbortSignal): Promise<Live> {
    const live = await this.session(timeoutMs, signal);
    try {
      await this.bus.portal(RD, member, `oa{sv}${signature}`, [live.handle, {}, ...args], timeoutMs);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw fail('input_unavailable', `The RemoteDesktop portal refused ${member}: ${message}`, {
        reason: /access to a device/.test(message) ? 'consent_view_only' : 'portal_failed',
      });
    }
    return live;
  }

  close(): void {
    const live = this.live;
    this.live = undefined;
    void live?.then(
      (l) => this.closeSession(l.handle),
      () => undefined,
    );
  }
}

/** The streams of Start's answer: a(ua{sv}) with position (ii) and size (ii). */
export function parseStreams(value: unknown): SharedStream[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry): SharedStream[] => {
    if (!Array.isArray(entry)) return [];
    const [node, props] = entry as [unknown, Record<string, unknown> | undefined];
    const position = props?.['position'];
    const size = props?.['size'];
    if (typeof node !== 'number' || !Array.isArray(size)) return [];
    const [x, y] = Array.isArray(position) ? (position as number[]) : [0, 0];
    const [width, height] = size as number[];
    if (![x, y, width, height].every((n) => typeof n === 'number' && Number.isFinite(n)) || (width ?? 0) <= 0 || (height ?? 0) <= 0) return [];
    return [{ node, x: x ?? 0, y: y ?? 0, width: width ?? 0, height: height ?? 0 }];
  });
}
