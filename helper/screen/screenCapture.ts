// Screenshots bound for input (docs/tools.md#screen-tier): captures masked for the supervisor and
// excluded apps, kept for the agent that took them with their region and transform, so input can be
// bound to one; the staleness check that refuses stale_screen when the pixels around a point, the
// bound window or the monitors changed since; and the pictures an input's card and the receipts
// timeline show. Captures wait their turn in a lane of the agent they serve, and are encoded on
// worker threads (docs/architecture.md#screen-work-off-the-rpc-loop), so the RPC loop always answers.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  SCREENSHOT_LIMITS,
  fail,
  screenTransform,
  type EncodedImage,
  type ImageRect,
  type ScreenCaptureParams,
  type ScreenCaptureResult,
  type ScreenInputParams,
  type ScreenInputResult,
  type ScreenTransform,
  type WindowInfo,
} from '../../protocol/index.js';
import { CaptureStore, type KeptCapture } from './captureStore.js';
import { centred, focusCrop, pointCrop } from './cardCrop.js';
import { sharedFrame, type EncoderPool } from './encoderPool.js';
import { compareRegion } from './pixelChange.js';
import { area, intersect, paintMasks, uncovered, visibleParts } from './regions.js';
import type { NativeWindow, ScreenBackend, ScreenCapabilities, ScreenRect } from './screenBackend.js';
import { REFUSALS, excludedParts, windowStack, type Annotated, type ScreenContext } from './screenContext.js';
import { PERSON_LANE, ScreenQueue } from './screenQueue.js';
import { MAX_ANSWER_BACKLOG, type ScreenWork } from './screenWork.js';

/** Half the side of the square around a point that must be unchanged at dispatch, a blinking caret aside (physical pixels, pixelChange.ts). */
export const BINDING_RADIUS = 32;
/** The card picture of an input bound to no screenshot (raw points, keys): a fresh, smaller capture. */
const CARD_SIZE = { width: 960, height: 600, quality: 70 };

/** The capture id of a picture that was not kept (nothing can be bound to it). */
const UNKEPT = 'Cunkept';

/** The receipts timeline's picture of the screen after an input, and how long after. */
const AFTER_SIZE = { width: 320, height: 200, quality: 60 };
const AFTER_PICTURE_MS = 150;

function sameRect(a: ScreenRect, b: ScreenRect): boolean {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}

/** Whether `inner` lies wholly inside `outer`. */
function contains(outer: ScreenRect, inner: ScreenRect): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;
}

/** A changed box in words: `12×17 px at 400,300`. */
function describeBox(r: ScreenRect | undefined): string {
  return r === undefined ? 'the region' : `${r.width}×${r.height} px at ${r.x},${r.y}`;
}

/** A physical rectangle as image pixels, rounded outward and clipped to the image. */
function toImageRect(t: ScreenTransform, r: ScreenRect, width: number, height: number): ImageRect | undefined {
  const x0 = Math.max(0, Math.floor((r.x - t.origin.x) / t.scale_x));
  const y0 = Math.max(0, Math.floor((r.y - t.origin.y) / t.scale_y));
  const x1 = Math.min(width, Math.ceil((r.x + r.width - t.origin.x) / t.scale_x));
  const y1 = Math.min(height, Math.ceil((r.y + r.height - t.origin.y) / t.scale_y));
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : undefined;
}

/** The captures of one helper: taken in their lane's turn, kept per agent, and compared again at dispatch. */
export class ScreenCaptures {
  private readonly store = new CaptureStore();
  private readonly pool: EncoderPool;
  private readonly queue: ScreenQueue;
  private readonly backlog: () => number;

  constructor(
    /** The opened backend, or the typed failure of opening it. */
    private readonly backend: (code: 'capture_unavailable' | 'input_unavailable') => Promise<ScreenBackend>,
    private readonly context: ScreenContext,
    /** The lane of the call being served: its agent's, or the person's. */
    private readonly lane: () => string,
    work: ScreenWork,
    log: (line: string) => void,
  ) {
    this.pool = work.pool;
    this.queue = new ScreenQueue(work.limits, log);
    this.backlog = work.backlog;
  }

  /** Stops the encoder workers. */
  close(): Promise<void> {
    return this.pool.close();
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
    const stack = await windowStack(this.context, backend);
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
        masks.push(...excludedParts(stack, region));
        image = sharedFrame(await backend.capture(region));
      }
    } else {
      masks.push(...excludedParts(stack, region));
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

  /** The screen shortly after an input, taken only when a slot is free now (never waited for): a convenience for the timeline. */
  afterPicture(backend: ScreenBackend, lane: string): Promise<EncodedImage | undefined> {
    return this.queue.run(lane, () => this.afterPictureNow(backend, lane), { wait: false }).catch(() => undefined);
  }

  /** The screen shortly after an input (the application had a moment to answer it), small and masked. */
  private async afterPictureNow(backend: ScreenBackend, lane: string): Promise<EncodedImage> {
    await sleep(AFTER_PICTURE_MS);
    const caps = await backend.capabilities();
    const stack = await windowStack(this.context, backend);
    const image = sharedFrame(await backend.capture(caps.screen));
    paintMasks(image, excludedParts(stack, caps.screen));
    const { data, mime, width, height } = await this.encode(lane, image, AFTER_SIZE.width, AFTER_SIZE.height, 'jpeg', AFTER_SIZE.quality);
    return { data, mime, width, height };
  }

  /** Refuses stale_screen when the bound capture is gone, the monitors or the bound window changed, or the pixels around a point did. */
  async checkBound(
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
      const square = intersect(centred(pt.x, pt.y, BINDING_RADIUS * 2, BINDING_RADIUS * 2), kept.region);
      if (square === undefined) continue;
      const fresh =
        kept.viaWindow && kept.window !== undefined && backend.captureWindow !== undefined
          ? await backend.captureWindow(kept.window.handle)
          : await backend.capture(square);
      paintMasks(fresh, kept.masks);
      const scale = caps.monitors.find((m) => pt.x >= m.x && pt.y >= m.y && pt.x < m.x + m.width && pt.y < m.y + m.height)?.scale ?? 1;
      const change = compareRegion(kept.image, fresh, square, scale);
      worst = Math.max(worst, change.share);
      // A blinking caret is not a change (docs/tools.md#binding-and-the-blinking-caret); anything else that differs is.
      if (change.verdict === 'changed')
        throw fail(
          'stale_screen',
          `the screen around ${pt.x},${pt.y} changed since the screenshot (${(change.share * 100).toFixed(1)}% of the pixels, in ${describeBox(change.box)}); take a new screenshot`,
          { reason: 'region_changed', changed: Number(change.share.toFixed(4)), region: square, ...(change.box !== undefined ? { box: change.box } : {}) },
        );
    }
    return worst;
  }

  /** The card's pictures: a fresh capture when the input is bound to none, and a full-resolution crop around the point. */
  async card(
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
    if (source === undefined) return result;
    // Around the point; for keys and text, around the element with the focus, outlined. Where windows
    // are unknown (Wayland) an application's screen coordinates are its window's own, so they place nothing.
    const first = points[0];
    const focus = first === undefined && result.windows_unknown !== true ? result.element?.rect : undefined;
    const planned = first !== undefined ? pointCrop(source.image, source.region, first) : focus !== undefined ? focusCrop(focus, source.region) : undefined;
    if (planned === undefined) return result;
    const { rect, grown } = planned;
    const { data, mime, width, height } = await this.encode(lane, cropOf(source, rect), rect.width, rect.height, 'png');
    // A clicked element is outlined too when the crop holds it whole (a text field, a button; not a page).
    const at = first !== undefined ? result.element?.rect : undefined;
    const outline = focus ?? (at !== undefined && contains(rect, at) ? at : undefined);
    result.crop = { image: { data, mime, width, height }, rect, ...(outline !== undefined ? { outline } : {}), ...(grown ? { grown } : {}) };
    return result;
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
