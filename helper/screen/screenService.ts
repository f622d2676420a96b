// The helper's screen methods over one ScreenBackend (docs/tools.md#screen-tier): this service opens
// the backend, checks each call's params and answers the capabilities, the cursor and the desktop's
// consents itself; captures (masked, kept for the agent that took them so input can be bound to them)
// are screenCapture.ts's, and pointer and keyboard input is screenInput.ts's.
import {
  OverseerError,
  SCREEN_METHODS,
  fail,
  type CapabilitiesAnswer,
  type ScreenCaptureParams,
  type ScreenCaptureResult,
  type ScreenConsent,
  type ScreenInputParams,
  type ScreenInputResult,
} from '../../protocol/index.js';
import type { ScreenBackend } from './screenBackend.js';
import { ScreenCaptures } from './screenCapture.js';
import type { ScreenContext } from './screenContext.js';
import { ScreenInputs } from './screenInput.js';
import { PERSON_LANE } from './screenQueue.js';
import { defaultWork, type ScreenWork } from './screenWork.js';

export type { ScreenContext } from './screenContext.js';

export class ScreenService {
  private opened: Promise<ScreenBackend> | undefined;
  private readonly captures: ScreenCaptures;
  private readonly inputs: ScreenInputs;
  /** The keyboard bound to one element, for element_act's values that are typed (focusTyping.ts). */
  readonly keyboard: ScreenInputs['keyboard'];

  constructor(
    private readonly open: () => Promise<ScreenBackend>,
    private readonly context: ScreenContext,
    private readonly log: (line: string) => void,
    work: ScreenWork = defaultWork(log),
  ) {
    const backend = (code: 'capture_unavailable' | 'input_unavailable'): Promise<ScreenBackend> => this.backend(code);
    const lane = (): string => this.lane();
    this.captures = new ScreenCaptures(backend, context, lane, work, log);
    this.inputs = new ScreenInputs(backend, context, lane, this.captures);
    this.keyboard = this.inputs.keyboard;
  }

  /** True for the methods this service answers. */
  static handles(method: string): method is keyof typeof SCREEN_METHODS {
    return Object.hasOwn(SCREEN_METHODS, method);
  }

  private backend(code: 'capture_unavailable' | 'input_unavailable'): Promise<ScreenBackend> {
    this.opened ??= this.open();
    // A backend that failed to open is tried again next time (the display may come back).
    return this.opened.catch((error: unknown) => {
      this.opened = undefined;
      // A remote screen that cannot be reached says so as such (docs/connections.md#osworld), never as a local lack.
      if (error instanceof OverseerError && error.code === 'connection_unavailable') throw error;
      if (error instanceof Error && 'info' in error) {
        const info = (error as { info: { detail: string; data?: Record<string, unknown> } }).info;
        throw fail(code, info.detail, info.data);
      }
      throw fail(code, `no screen backend: ${error instanceof Error ? error.message : String(error)}`, { reason: 'backend_failed' });
    });
  }

  async handle(method: keyof typeof SCREEN_METHODS, params: unknown, signal?: AbortSignal): Promise<unknown> {
    const parsed = SCREEN_METHODS[method].params.safeParse(params ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 10).map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
      throw fail('invalid_argument', `${method}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`.slice(0, 1000), { issues });
    }
    switch (method) {
      case 'screen_capabilities':
        return this.capabilities();
      case 'screen_capture':
        return this.capture(parsed.data as ScreenCaptureParams, signal);
      case 'screen_input':
        return this.input(parsed.data as ScreenInputParams, signal);
      case 'screen_cursor':
        return (await this.backend('input_unavailable')).cursor();
      case 'screen_consent':
        return this.consent((parsed.data as { forget?: boolean }).forget === true);
    }
  }

  /** The desktop's own consents, read from the capabilities' degradations; `forget` drops them first. */
  private async consent(forget: boolean): Promise<ScreenConsent> {
    const backend = await this.backend('capture_unavailable');
    if (backend.forgetConsent === undefined) return { asks: false };
    if (forget) await backend.forgetConsent();
    const caps = await backend.capabilities();
    const unknown = caps.capture.degradations.includes('no_window_positions') ? { windows_unknown: true } : {};
    // A desktop that asks no one (KDE 5.27 for a program outside a sandbox) has no answer to show or forget.
    if (caps.capture.degradations.includes('no_consent_asked') && caps.input.degradations.includes('no_consent_asked')) return { asks: false, ...unknown };
    const state = (degradations: string[]): string => {
      const named = degradations.find((d) => d.startsWith('consent_') && d !== 'consent_per_session');
      return named === undefined ? 'given' : named.slice('consent_'.length);
    };
    return {
      asks: true,
      screenshots: state(caps.capture.degradations),
      input: state(caps.input.degradations),
      input_per_session: caps.input.degradations.includes('consent_per_session'),
      ...(forget ? { forgotten: true } : {}),
      ...unknown,
    };
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    await Promise.all([opened?.then((b) => b.close()).catch(() => undefined), this.captures.close()]);
  }

  /** The lane of the call being served: its agent's, or the person's. */
  private lane(): string {
    return this.context.agent() ?? PERSON_LANE;
  }

  async capabilities(): Promise<CapabilitiesAnswer> {
    const connection = process.env['DISPLAY'] ?? process.env['WAYLAND_DISPLAY'] ?? '';
    const accessibility = this.context.accessibility();
    const wayland = process.env['XDG_SESSION_TYPE'] === 'wayland' || (process.env['WAYLAND_DISPLAY'] ?? '') !== '';
    try {
      const caps = await (await this.backend('capture_unavailable')).capabilities();
      const answer: CapabilitiesAnswer = { platform: process.platform, connection, accessibility, ...caps };
      // XWayland: the X server sees only X clients; native Wayland windows are not in its pixels or stack.
      if (wayland && caps.session === 'x11') {
        answer.capture = { ...caps.capture, degradations: [...caps.capture.degradations, 'xwayland_only'] };
        answer.input = { ...caps.input, degradations: [...caps.input.degradations, 'xwayland_only'] };
      }
      return answer;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const none = { available: false, path: 'none', degradations: [] };
      return {
        platform: process.platform,
        session: wayland ? 'wayland' : 'none',
        connection,
        // On Wayland the backend is the portals' (docs/wayland.md): it could not be opened, and `reason` says why.
        capture: wayland ? { ...none, degradations: ['portals_unavailable'] } : none,
        input: wayland ? { ...none, degradations: ['portals_unavailable'] } : none,
        monitors: [],
        screen: { x: 0, y: 0, width: 0, height: 0 },
        accessibility,
        reason: reason.slice(0, 500),
      };
    }
  }

  /** One capture, in its lane's turn (refused `timeout`, reason `busy`, past the queue's bounds). */
  capture(args: ScreenCaptureParams, signal?: AbortSignal): Promise<ScreenCaptureResult> {
    return this.captures.capture(args, signal);
  }

  /** One input, checked and bound, or only checked (`check_only`: the card's pictures). */
  input(p: ScreenInputParams, signal?: AbortSignal): Promise<ScreenInputResult> {
    return this.inputs.input(p, signal);
  }
}
