// The helper's screen methods over one ScreenBackend (docs/tools.md#screen-tier):
// captures masked for the supervisor and excluded apps, kept so input can be bound to them; input
// refused excluded_target on the supervisor or an excluded app, refused stale_screen when the pixels
// around the point, the bound window or the monitors changed; the element the tree names at the point.
// Captures wait their turn in a lane of the agent they serve, and are encoded on worker threads
// (docs/architecture.md#screen-work-off-the-rpc-loop), so the RPC loop always answers.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  OverseerError,
  SCREEN_METHODS,
  SCREENSHOT_LIMITS,
  fail,
  screenTransform,
  type CapabilitiesAnswer,
  type EncodedImage,
  type ImageRect,
  type PointElement,
  type ScreenCaptureResult,
  type ScreenInputParams,
  type ScreenInputResult,
  type ScreenConsent,
  type ScreenTransform,
  type ScreenCaptureParams,
  type ScreenWindow,
  type WindowInfo,
} from '../../protocol/index.js';
import { CaptureStore, type KeptCapture } from './captureStore.js';
import { checkKeyboard, typeIntoElement, type FocusAccess, type FocusStep } from './focusTyping.js';
import { sharedFrame, type EncoderPool } from './encoderPool.js';
import { PERSON_LANE, ScreenQueue } from './screenQueue.js';
import { MAX_ANSWER_BACKLOG, defaultWork, type ScreenWork } from './screenWork.js';
import { area, changedShare, intersect, paintMasks, uncovered, visibleParts, windowAt } from './regions.js';
import type { NativeWindow, ScreenBackend, ScreenCapabilities, ScreenRect } from './screenBackend.js';

/** What the screen service asks of the accessibility side and of the exclusion rules. */
export interface ScreenContext {
  /** The accessibility window of a window_list id (throws stale_window, excluded_target, …). */
  resolveWindow(id: string): Promise<WindowInfo>;
  /** The application's name as the tree names the process, if it does. */
  appName(pid: number): Promise<string | undefined>;
  /** The deepest element at a physical point in the window of `pid` titled `title`. */
  elementAt(pid: number, title: string, x: number, y: number): Promise<{ window?: WindowInfo; element?: PointElement }>;
  /** The element with the keyboard focus in the windows of `pid`. */
  focused(pid: number, title: string): Promise<{ window?: WindowInfo; element?: PointElement }>;
  /** Why this window must never be shown or driven (the supervisor, an excluded app), or undefined. */
  excluded(window: NativeWindow, app: string | undefined): string | undefined;
  accessibility(): { backend: string; available: boolean };
  /** Whether an element has the keyboard focus now, asked of its application (undefined: cannot tell, which stops rule-covered keys). */
  hasFocus?(key: string): Promise<boolean | undefined>;
  /**
   * The window the accessibility tree says is active (the one with the keyboard focus), for desktops
   * whose screen backend cannot tell; its rect is unknown (zero). Undefined when none or several are.
   */
  activeWindow?(): Promise<NativeWindow | undefined>;
  /** The agent the call being served is made for (its $scope), or undefined for the person's and the supervisor's own calls. */
  agent(): string | undefined;
}

/** Degradations that say the person refused (docs/wayland.md#consent): the reason of a refused capture or input. */
const REFUSALS = new Set(['consent_refused', 'consent_view_only', 'consent_stopped']);
/** Half the side of the square around a point that must be unchanged at dispatch (physical pixels). */
export const BINDING_RADIUS = 32;
/** Share of that square's pixels that may differ (a caret blinking, a spinner) before it counts as changed. */
export const STALE_SHARE = 0.02;
/** The card's full-resolution crop around the point: wide enough for a field with its label, shown 1:1 on the card (docs/supervision.md#card-pictures). */
const CROP = { width: 400, height: 240 };
/** The card picture of an input bound to no screenshot (raw points, keys): a fresh, smaller capture. */
const CARD_SIZE = { width: 960, height: 600, quality: 70 };

/** A moment for the application to take a key before the focus is read again (rule-covered keys). */
const SCOPE_SETTLE_MS = 40;
/** The capture id of a picture that was not kept (nothing can be bound to it). */
const UNKEPT = 'Cunkept';

/** The receipts timeline's picture of the screen after an input, and how long after. */
const AFTER_SIZE = { width: 320, height: 200, quality: 60 };
const AFTER_PICTURE_MS = 150;

type Annotated = NativeWindow & { app: string; excludedWhy?: string };

const MODIFIER_KEYS: Record<string, string> = { ctrl: 'Control_L', shift: 'Shift_L', alt: 'Alt_L', super: 'Super_L' };

function backendKey(name: string): string {
  return MODIFIER_KEYS[name] ?? name;
}

function sameRect(a: ScreenRect, b: ScreenRect): boolean {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}

function box(x: number, y: number, width: number, height: number): ScreenRect {
  return { x: x - Math.floor(width / 2), y: y - Math.floor(height / 2), width, height };
}

/** A physical rectangle as image pixels, rounded outward and clipped to the image. */
function toImageRect(t: ScreenTransform, r: ScreenRect, width: number, height: number): ImageRect | undefined {
  const x0 = Math.max(0, Math.floor((r.x - t.origin.x) / t.scale_x));
  const y0 = Math.max(0, Math.floor((r.y - t.origin.y) / t.scale_y));
  const x1 = Math.min(width, Math.ceil((r.x + r.width - t.origin.x) / t.scale_x));
  const y1 = Math.min(height, Math.ceil((r.y + r.height - t.origin.y) / t.scale_y));
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : undefined;
}

function screenWindow(w: Annotated, window?: WindowInfo): ScreenWindow {
  const out: ScreenWindow = { handle: w.handle, title: w.title.slice(0, 5000), app: w.app.slice(0, 500), rect: w.rect };
  if (w.pid !== undefined) out.pid = w.pid;
  if (window !== undefined) out.window = window.window;
  return out;
}

export class ScreenService {
  private readonly store = new CaptureStore();
  private opened: Promise<ScreenBackend> | undefined;
  private readonly pool: EncoderPool;
  private readonly queue: ScreenQueue;
  private readonly backlog: () => number;

  constructor(
    private readonly open: () => Promise<ScreenBackend>,
    private readonly context: ScreenContext,
    private readonly log: (line: string) => void,
    work: ScreenWork = defaultWork(log),
  ) {
    this.pool = work.pool;
    this.queue = new ScreenQueue(work.limits, log);
    this.backlog = work.backlog;
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
    await Promise.all([opened?.then((b) => b.close()).catch(() => undefined), this.pool.close()]);
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

  /** The keyboard bound to one element, for element_act's values that are typed (focusTyping.ts). */
  readonly keyboard = {
    check: async (): Promise<void> => {
      await checkKeyboard(this.focusAccess);
    },
    type: (target: { pid: number; title: string; key: string; focus(): Promise<void> }, steps: readonly FocusStep[]): Promise<{ path: string }> =>
      typeIntoElement(this.focusAccess, target, steps),
  };

  private readonly focusAccess: FocusAccess = {
    backend: () => this.backend('input_unavailable'),
    stack: (backend) => this.stack(backend),
    focus: async (backend, windowsUnknown) => this.keyboardFocus(backend, windowsUnknown ? [] : await this.stack(backend), windowsUnknown),
    hasFocus: (key) => this.context.hasFocus?.(key) ?? Promise.resolve(undefined),
  };

  /** The stack with application names and exclusion verdicts. */
  private async stack(backend: ScreenBackend): Promise<Annotated[]> {
    const windows = await backend.windows();
    return Promise.all(
      windows.map(async (w) => {
        const app = (w.pid !== undefined ? await this.context.appName(w.pid).catch(() => undefined) : undefined) ?? w.classes.at(-1) ?? '';
        const why = this.context.excluded(w, app);
        return why === undefined ? { ...w, app } : { ...w, app, excludedWhy: why };
      }),
    );
  }

  /** Visible parts of excluded windows inside `region`. */
  private excludedParts(stack: readonly Annotated[], region: ScreenRect): ScreenRect[] {
    return stack.flatMap((w, i) => (w.excludedWhy === undefined ? [] : visibleParts(stack, i).flatMap((p) => intersect(p, region) ?? [])));
  }

  /** Fits and encodes on an encoder worker; the person's pictures go first. */
  private async encode(lane: string, image: KeptCapture['image'], maxW: number, maxH: number, format: 'png' | 'jpeg', quality?: number) {
    const frame = { width: image.width, height: image.height, stride: image.stride, data: image.data };
    return this.pool.encode(
      { frame, maxWidth: maxW, maxHeight: maxH, format, ...(quality !== undefined ? { quality } : {}) },
      { priority: lane === PERSON_LANE },
    );
  }

  /** One capture, in its lane's turn (refused `timeout`, reason `busy`, past the queue's bounds). */
  capture(args: ScreenCaptureParams, signal?: AbortSignal): Promise<ScreenCaptureResult> {
    const lane = this.lane();
    // The person's lane is bounded on its own, and its pictures are small: it is never held back by agents' answers.
    const unread = this.backlog();
    if (lane !== PERSON_LANE && unread > MAX_ANSWER_BACKLOG)
      return Promise.reject(
        fail(
          'timeout',
          `the screen tier is busy: ${Math.round(unread / 2 ** 20)} MiB of earlier answers are still on their way to the supervisor; try again in a few seconds`,
          {
            reason: 'busy',
            queue: 'answers',
          },
        ),
      );
    return this.queue.run(lane, () => this.captureNow(args, lane), signal === undefined ? {} : { signal });
  }

  private async captureNow(args: ScreenCaptureParams, lane: string): Promise<ScreenCaptureResult> {
    const backend = await this.backend('capture_unavailable');
    const caps = await backend.capabilities();
    if (!caps.capture.available) {
      const refusal = caps.capture.degradations.find((d) => REFUSALS.has(d));
      throw fail('capture_unavailable', `screen capture is not available here (${caps.capture.path})`, {
        reason: refusal ?? 'backend',
        degradations: caps.capture.degradations,
      });
    }
    const stack = await this.stack(backend);
    // screen_only names why a covered window cannot be read; here its covered parts are masked and named instead.
    const degradations = caps.capture.degradations.filter((d) => d !== 'screen_only');
    let region: ScreenRect = caps.screen;
    let bound: Annotated | undefined;
    let info: WindowInfo | undefined;
    const masks: ScreenRect[] = [];
    let image: KeptCapture['image'];
    let viaWindow = false;
    if (args.window !== undefined) {
      info = await this.context.resolveWindow(args.window);
      if (backend.captureWindow !== undefined && caps.windowCapture?.available === true) {
        // The window's own pixels, covered or not: nothing else is in them, so nothing else is masked.
        bound = matchWindow(stack, info);
        image = sharedFrame(await backend.captureWindow(bound.handle));
        region = { x: image.origin.x, y: image.origin.y, width: image.width, height: image.height };
        degradations.push(...caps.windowCapture.degradations);
        viaWindow = true;
      } else {
        ({ region, bound } = this.windowRegion(stack, info, caps, degradations, masks));
        masks.push(...this.excludedParts(stack, region));
        image = sharedFrame(await backend.capture(region));
      }
    } else {
      masks.push(...this.excludedParts(stack, region));
      image = sharedFrame(await backend.capture(region));
    }
    paintMasks(image, masks);
    const format = args.format ?? 'png';
    const encoded = await this.encode(
      lane,
      image,
      args.max_width ?? SCREENSHOT_LIMITS.max_width.default,
      args.max_height ?? SCREENSHOT_LIMITS.max_height.default,
      format,
      args.quality,
    );
    const transform = screenTransform({ x: region.x, y: region.y }, region.width, region.height, encoded.width, encoded.height);
    const entry = {
      image,
      region,
      masks,
      monitors: JSON.stringify(caps.monitors),
      ...(bound !== undefined ? { window: { handle: bound.handle, rect: bound.rect } } : {}),
      viaWindow,
      at: Date.now(),
    };
    // A picture only a person sees is not kept: it never pushes out a capture an agent's input is bound to.
    const kept = args.keep === false ? { id: UNKEPT } : this.store.add(lane, entry);
    const result: ScreenCaptureResult = {
      capture: kept.id,
      image: { data: encoded.data, mime: encoded.mime, width: encoded.width, height: encoded.height },
      transform,
      region,
      capture_path: image.capturePath,
      degradations,
      masked: masks.flatMap((m) => toImageRect(transform, m, encoded.width, encoded.height) ?? []),
      sha256: encoded.sha256,
      bytes: encoded.bytes,
      capture_ms: image.captureMs,
      encode_ms: encoded.encodeMs,
    };
    if (info !== undefined) result.window = info;
    return result;
  }

  /**
   * The region of a window-bound capture: the window system's window of that process and title,
   * clipped to the screen; parts other windows cover are masked and named, never shown as the window.
   */
  private windowRegion(
    stack: readonly Annotated[],
    info: WindowInfo,
    caps: ScreenCapabilities,
    degradations: string[],
    masks: ScreenRect[],
  ): { region: ScreenRect; bound: Annotated } {
    const bound = matchWindow(stack, info);
    const region = intersect(bound.rect, caps.screen);
    if (region === undefined)
      throw fail('capture_unavailable', `window "${info.title}" lies off the screen`, { reason: 'window_off_screen', window: info.window });
    if (!sameRect(region, bound.rect)) degradations.push('partly_off_screen');
    const visible = visibleParts(stack, stack.indexOf(bound)).flatMap((p) => intersect(p, region) ?? []);
    if (area(visible) === 0)
      throw fail('capture_unavailable', `window "${info.title}" is covered by other windows: its pixels cannot be read here`, {
        reason: 'window_covered',
        window: info.window,
      });
    const covered = uncovered(region, visible);
    if (covered.length > 0) {
      degradations.push('partly_covered');
      masks.push(...covered);
    }
    return { region, bound };
  }

  async input(p: ScreenInputParams, signal?: AbortSignal): Promise<ScreenInputResult> {
    const lane = this.lane();
    const backend = await this.backend('input_unavailable');
    const caps = await backend.capabilities();
    if (!caps.input.available) {
      // The person's refusal (a Wayland portal's consent) is the reason, where there is one.
      const refusal = caps.input.degradations.find((d) => REFUSALS.has(d));
      throw fail('input_unavailable', `pointer and keyboard input are not available here (${caps.input.path})`, {
        reason: refusal ?? 'backend',
        degradations: caps.input.degradations,
      });
    }
    const stack = await this.stack(backend);
    const keyboard = p.op === 'type' || p.op === 'key' || p.op === 'hold';
    const points = keyboard ? [] : p.point !== undefined ? [p.point, ...(p.to !== undefined ? [p.to] : [])] : [await backend.cursor()];
    const result: ScreenInputResult = { path: caps.input.path, dispatched: false };
    if (caps.input.degradations.includes('no_window_positions')) result.windows_unknown = true;
    for (const [i, pt] of points.entries()) {
      if (pt.x < caps.screen.x || pt.y < caps.screen.y || pt.x >= caps.screen.x + caps.screen.width || pt.y >= caps.screen.y + caps.screen.height)
        throw fail('invalid_argument', `the point ${pt.x},${pt.y} lies off the screen ${caps.screen.width}x${caps.screen.height}`, { point: pt });
      const under = windowAt(stack, pt.x, pt.y);
      if (under?.excludedWhy !== undefined)
        throw fail('excluded_target', `the point ${pt.x},${pt.y} lands on ${under.excludedWhy} ("${under.title}"): input there is never dispatched`, {
          point: pt,
          title: under.title,
        });
      if (i === 0 && under !== undefined) {
        result.window = screenWindow(under);
        if (p.check_only === true && under.pid !== undefined) {
          const at = await this.context.elementAt(under.pid, under.title, pt.x, pt.y).catch((): { window?: WindowInfo; element?: PointElement } => ({}));
          result.window = screenWindow(under, at.window);
          if (at.element !== undefined) result.element = at.element;
        }
      }
    }
    let focusHandle: string | undefined;
    if (keyboard) {
      let focused: Annotated | undefined;
      ({ handle: focusHandle, window: focused } = await this.keyboardFocus(backend, stack, result.windows_unknown === true));
      if (focused?.excludedWhy !== undefined)
        throw fail('excluded_target', `the keyboard focus is on ${focused.excludedWhy} ("${focused.title}"): keys are never sent there`, {
          title: focused.title,
        });
      if (p.focus !== undefined && p.focus !== (focusHandle ?? 'none'))
        throw fail('stale_screen', 'the keyboard focus moved to another window since the keys were checked; nothing was sent', { reason: 'focus_changed' });
      if (focused !== undefined) {
        result.window = screenWindow(focused);
        if (focused.pid !== undefined) {
          const f = await this.context.focused(focused.pid, focused.title).catch((): { window?: WindowInfo; element?: PointElement } => ({}));
          result.window = screenWindow(focused, f.window);
          if (f.element !== undefined) result.element = f.element;
          result.focus_password = f.element?.password === true;
        }
      }
    }
    if (p.bound !== undefined) result.changed = await this.checkBound(backend, caps, stack, lane, p.bound, points);
    // Text the backend cannot type is refused before the person is asked, not after they approved it.
    if (p.op === 'type' && p.text !== undefined) await backend.checkText?.(p.text);
    if (p.check_only === true) return this.card(lane, p, result, points, signal);
    await this.dispatch(backend, p, result.windows_unknown === true);
    const done: ScreenInputResult = { ...result, dispatched: true };
    if (p.after_picture === true) {
      // A convenience for the timeline: taken only when a slot is free now, never waited for.
      const after = await this.queue.run(lane, () => this.afterPicture(backend, lane), { wait: false }).catch(() => undefined);
      if (after !== undefined) done.after_picture = after;
    }
    return done;
  }

  /** The screen shortly after an input (the application had a moment to answer it), small and masked. */
  private async afterPicture(backend: ScreenBackend, lane: string): Promise<EncodedImage> {
    await sleep(AFTER_PICTURE_MS);
    const caps = await backend.capabilities();
    const stack = await this.stack(backend);
    const image = sharedFrame(await backend.capture(caps.screen));
    paintMasks(image, this.excludedParts(stack, caps.screen));
    const { data, mime, width, height } = await this.encode(lane, image, AFTER_SIZE.width, AFTER_SIZE.height, 'jpeg', AFTER_SIZE.quality);
    return { data, mime, width, height };
  }

  /** Refuses stale_screen when the bound capture is gone, the monitors or the bound window changed, or the pixels around a point did. */
  private async checkBound(
    backend: ScreenBackend,
    caps: ScreenCapabilities,
    stack: readonly Annotated[],
    lane: string,
    id: string,
    points: readonly { x: number; y: number }[],
  ): Promise<number> {
    // Another agent's capture is not found either: each agent binds input to its own screenshots only.
    const kept = this.store.get(id, lane);
    if (kept === undefined)
      throw fail('stale_screen', 'the screenshot this input was planned on is no longer kept (too many of your screenshots since); take a new one', {
        reason: 'screenshot_gone',
      });
    if (kept.monitors !== JSON.stringify(caps.monitors))
      throw fail('stale_screen', 'the monitors changed since the screenshot', { reason: 'monitors_changed' });
    if (kept.window !== undefined) {
      const now = stack.find((w) => w.handle === kept.window?.handle);
      if (now === undefined) throw fail('stale_screen', 'the window of the screenshot is gone', { reason: 'window_gone' });
      if (!sameRect(now.rect, kept.window.rect))
        throw fail('stale_screen', 'the window moved or changed size since the screenshot', { reason: 'window_moved' });
    }
    let worst = 0;
    for (const pt of points) {
      const square = intersect(box(pt.x, pt.y, BINDING_RADIUS * 2, BINDING_RADIUS * 2), kept.region);
      if (square === undefined) continue;
      const fresh =
        kept.viaWindow && kept.window !== undefined && backend.captureWindow !== undefined
          ? await backend.captureWindow(kept.window.handle)
          : await backend.capture(square);
      paintMasks(fresh, kept.masks);
      const share = changedShare(kept.image, fresh, square);
      worst = Math.max(worst, share);
      if (share > STALE_SHARE)
        throw fail(
          'stale_screen',
          `the screen around ${pt.x},${pt.y} changed since the screenshot (${(share * 100).toFixed(1)}% of the pixels); take a new screenshot`,
          { reason: 'region_changed', changed: Number(share.toFixed(4)), region: square },
        );
    }
    return worst;
  }

  /** The card's pictures: a fresh capture when the input is bound to none, and a full-resolution crop around the point. */
  private async card(
    lane: string,
    p: ScreenInputParams,
    result: ScreenInputResult,
    points: readonly { x: number; y: number }[],
    signal: AbortSignal | undefined,
  ): Promise<ScreenInputResult> {
    let source = p.bound !== undefined ? this.store.get(p.bound, lane) : undefined;
    if (source === undefined) {
      // Bound to no screenshot: the card shows a whole-screen capture, taken and kept as an agent's is, which the dispatch is bound to.
      result.fresh = await this.capture({ max_width: CARD_SIZE.width, max_height: CARD_SIZE.height, format: 'jpeg', quality: CARD_SIZE.quality }, signal);
      source = this.store.get(result.fresh.capture, lane);
    }
    const first = points[0];
    if (first !== undefined && source !== undefined) {
      const rect = intersect(box(first.x, first.y, CROP.width, CROP.height), source.region);
      if (rect !== undefined) {
        const crop = cropOf(source, rect);
        const { data, mime, width, height } = await this.encode(lane, crop, rect.width, rect.height, 'png');
        result.crop = { image: { data, mime, width, height }, rect };
      }
    }
    return result;
  }

  /**
   * Keys or text a session rule allowed (docs/supervision.md#rules-and-keys): one at a time, the
   * focus read again before each — after a moment for the application to take the last one — and
   * the rest refused, saying how far it got, the moment the focus is not where the rule reaches.
   */
  /**
   * The window with the keyboard focus: the backend's answer, or where the backend cannot tell
   * (Wayland tells no program), the one window the accessibility tree says is active, which has no
   * known place on the screen (docs/wayland.md#windows-and-coordinates).
   */
  private async keyboardFocus(backend: ScreenBackend, stack: readonly Annotated[], windowsUnknown: boolean): Promise<{ handle?: string; window?: Annotated }> {
    const handle = await backend.focusedWindow();
    if (handle !== undefined || !windowsUnknown || this.context.activeWindow === undefined) {
      const window = stack.find((w) => w.handle === handle);
      return { ...(handle === undefined ? {} : { handle }), ...(window === undefined ? {} : { window }) };
    }
    const active = await this.context.activeWindow().catch(() => undefined);
    if (active === undefined) return {};
    const app = (active.pid !== undefined ? await this.context.appName(active.pid).catch(() => undefined) : undefined) ?? active.classes.at(-1) ?? '';
    const why = this.context.excluded(active, app);
    return { handle: active.handle, window: why === undefined ? { ...active, app } : { ...active, app, excludedWhy: why } };
  }

  private async inScope(
    backend: ScreenBackend,
    windowsUnknown: boolean,
    stay: NonNullable<ScreenInputParams['stay']>,
    n: number,
    unit: 'keys' | 'characters',
    send: (i: number) => Promise<void>,
  ): Promise<void> {
    for (let i = 0; i < n; i++) {
      if (i > 0) await sleep(SCOPE_SETTLE_MS);
      const { handle: window } = await this.keyboardFocus(backend, [], windowsUnknown);
      const element = stay.element === undefined ? true : await (this.context.hasFocus?.(stay.element) ?? Promise.resolve(undefined));
      if (window !== stay.window || element !== true)
        throw fail(
          'stale_screen',
          `the keyboard focus ${window !== stay.window ? 'left the window' : element === false ? 'left the element' : 'could not be read on the element'} the session rule covers after ${i} of ${n} ${unit}; the rest was not sent`,
          { reason: 'left_rule_scope', sent: i, of: n, unit },
        );
      await send(i);
    }
  }

  private async dispatch(backend: ScreenBackend, p: ScreenInputParams, windowsUnknown: boolean): Promise<void> {
    const button = p.button ?? 'left';
    switch (p.op) {
      case 'click':
        return backend.click(p.point!.x, p.point!.y, button, p.count ?? 1);
      case 'move':
        return backend.move(p.point!.x, p.point!.y);
      case 'drag': {
        await backend.move(p.point!.x, p.point!.y);
        await backend.button(button, 'down');
        try {
          await backend.move(p.to!.x, p.to!.y);
        } finally {
          await backend.button(button, 'up');
        }
        return;
      }
      case 'down':
      case 'up':
        if (p.point !== undefined) await backend.move(p.point.x, p.point.y);
        return backend.button(button, p.op);
      case 'scroll':
        return backend.scroll(p.point!.x, p.point!.y, p.direction ?? 'down', p.amount ?? 3);
      case 'type': {
        if (p.stay === undefined) return backend.typeText(p.text ?? '');
        const chars = [...(p.text ?? '')];
        return this.inScope(backend, windowsUnknown, p.stay, chars.length, 'characters', (i) => backend.typeText(chars[i] ?? ''));
      }
      case 'key': {
        const combos = p.keys ?? [];
        const tap = (i: number): Promise<void> => {
          const combo = combos[i];
          return combo === undefined ? Promise.resolve() : backend.key([...combo.modifiers, ...(combo.key === null ? [] : [combo.key])].map(backendKey), 'tap');
        };
        if (p.stay !== undefined) return this.inScope(backend, windowsUnknown, p.stay, combos.length, 'keys', tap);
        for (let i = 0; i < combos.length; i++) await tap(i);
        return;
      }
      case 'hold': {
        const keys = (p.keys ?? []).flatMap((c) => [...c.modifiers, ...(c.key === null ? [] : [c.key])]).map(backendKey);
        await backend.key(keys, 'down');
        try {
          await sleep(p.duration_ms ?? 500);
        } finally {
          await backend.key(keys, 'up');
        }
        return;
      }
    }
  }
}

/**
 * The window system's window of a tree window: that process's window of the same title, else the
 * one the tree's rectangle overlaps most, else its only window; capture_unavailable when none.
 */
function matchWindow<W extends NativeWindow>(stack: readonly W[], info: WindowInfo): W {
  const mine = stack.filter((w) => w.pid === info.pid);
  const seen = info.rect === undefined ? undefined : { x: info.rect.x, y: info.rect.y, width: info.rect.w, height: info.rect.h };
  const overlap = (w: W): number => {
    const o = seen === undefined ? undefined : intersect(w.rect, seen);
    return o === undefined ? 0 : o.width * o.height;
  };
  const bound =
    mine.find((w) => w.title === info.title) ??
    [...mine].sort((a, b) => overlap(b) - overlap(a)).find((w) => overlap(w) > 0) ??
    (mine.length === 1 ? mine[0] : undefined);
  if (bound === undefined)
    throw fail('capture_unavailable', `window "${info.title}" is not mapped on this screen (no window of pid ${info.pid} to capture)`, {
      reason: 'window_not_on_screen',
      window: info.window,
    });
  return bound;
}

/** The pixels of `rect` (inside the capture) as a capture of their own. */
function cropOf(source: KeptCapture, rect: ScreenRect): KeptCapture['image'] {
  const { image } = source;
  const stride = rect.width * 4;
  const data = Buffer.alloc(stride * rect.height);
  for (let row = 0; row < rect.height; row++) {
    const from = (rect.y - image.origin.y + row) * image.stride + (rect.x - image.origin.x) * 4;
    image.data.copy(data, row * stride, from, from + stride);
  }
  return { ...image, width: rect.width, height: rect.height, stride, data, origin: { x: rect.x, y: rect.y } };
}
