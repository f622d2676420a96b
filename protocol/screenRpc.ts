// The helper's screen methods (docs/tools.md#screen-tier): capabilities, a capture bound
// to its transform and kept by the helper, and input bound to that capture. Points here are physical
// pixels; image space belongs to the supervisor, which keeps the transform of every screenshot.
import { z } from 'zod';
import { ConnectionRef } from './connections.js';
import { WindowInfo } from './elements.js';
import { MouseButton, ScreenshotArgs } from './screenArgs.js';
import { ImageRect, Point, ScreenTransform } from './screenGeometry.js';

/** A rectangle in physical pixels. */
export const PhysicalRect = z.object({ x: z.number().int(), y: z.number().int(), width: z.number().int().min(0), height: z.number().int().min(0) });
export type PhysicalRect = z.infer<typeof PhysicalRect>;

/** One monitor, physical pixels on the virtual screen. */
export const MonitorInfo = PhysicalRect.extend({ name: z.string().max(200), primary: z.boolean(), scale: z.number().positive() });
export type MonitorInfo = z.infer<typeof MonitorInfo>;

/** What a capture or input backend can do, and its named degradations. */
export const ScreenPath = z.object({ available: z.boolean(), path: z.string().max(100), degradations: z.array(z.string().max(100)).max(50) });

/** The capabilities tool's answer. */
export const CapabilitiesAnswer = z.object({
  platform: z.string().max(50),
  session: z.enum(['x11', 'wayland', 'windows', 'none']),
  /** The display connection in use ($DISPLAY, the Wayland socket, or the window station). */
  connection: z.string().max(200),
  capture: ScreenPath,
  input: ScreenPath,
  monitors: z.array(MonitorInfo).max(64),
  screen: PhysicalRect,
  /** The accessibility tier, which works whatever the screen tier can do. */
  accessibility: z.object({ backend: z.string().max(50), available: z.boolean() }),
  /** Why the screen tier is unavailable, when it is. */
  reason: z.string().max(500).optional(),
  /** The Overseer connection this answer is about (the agent's active one; the supervisor adds it). */
  active_connection: ConnectionRef.optional(),
});
export type CapabilitiesAnswer = z.infer<typeof CapabilitiesAnswer>;

/** A top-level window as the window system stacks it. */
export const ScreenWindow = z.object({
  handle: z.string().max(100),
  title: z.string().max(5000),
  /** The application's name: the accessibility name of its process when known, else its window class. */
  app: z.string().max(500),
  pid: z.number().int().nonnegative().optional(),
  rect: PhysicalRect,
  /** The accessibility window id (window_list) of this window, when the tree names one. */
  window: z.string().max(200).optional(),
});
export type ScreenWindow = z.infer<typeof ScreenWindow>;

/** The element the accessibility tree names at a point, or that has the keyboard focus. */
export const PointElement = z.object({
  key: z.string().max(500).optional(),
  role: z.string().max(100),
  name: z.string().max(500).optional(),
  password: z.boolean(),
  /** Where it is on the screen, physical pixels, as its application said when asked (the card's outline). */
  rect: PhysicalRect.optional(),
});
export type PointElement = z.infer<typeof PointElement>;

/** An encoded image. */
export const EncodedImage = z.object({
  data: z.string().describe('base64'),
  mime: z.enum(['image/png', 'image/jpeg']),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});
export type EncodedImage = z.infer<typeof EncodedImage>;

export const ScreenCaptureParams = ScreenshotArgs.extend({
  /** false: a picture only a person sees (the Screen view, a card): not kept, so it never pushes out a capture an agent's input is bound to. */
  keep: z.boolean().optional(),
});
export type ScreenCaptureParams = z.infer<typeof ScreenCaptureParams>;
export const ScreenCaptureResult = z.object({
  /** The helper's id of the kept capture, bound by later input (screen_input `bound`). */
  capture: z.string().max(100),
  image: EncodedImage,
  transform: ScreenTransform,
  /** The physical rectangle captured. */
  region: PhysicalRect,
  capture_path: z.string().max(100),
  degradations: z.array(z.string().max(100)).max(50),
  masked: z.array(ImageRect).max(1000),
  window: WindowInfo.optional(),
  sha256: z.string().max(100),
  bytes: z.number().int().nonnegative(),
  capture_ms: z.number(),
  encode_ms: z.number(),
});
export type ScreenCaptureResult = z.infer<typeof ScreenCaptureResult>;

/** What one input does, in physical pixels and backend-neutral key names. */
export const ScreenOp = z.enum(['click', 'move', 'drag', 'down', 'up', 'scroll', 'type', 'key', 'hold']);
export type ScreenOp = z.infer<typeof ScreenOp>;

export const KeyComboWire = z.object({ modifiers: z.array(z.string().max(20)).max(8), key: z.string().max(40).nullable() });

export const ScreenInputParams = z.strictObject({
  op: ScreenOp,
  point: Point.optional(),
  to: Point.optional(),
  button: MouseButton.optional(),
  count: z.number().int().min(1).max(3).optional(),
  direction: z.enum(['up', 'down', 'left', 'right']).optional(),
  amount: z.number().int().min(1).max(50).optional(),
  text: z.string().max(100_000).optional(),
  keys: z.array(KeyComboWire).max(200).optional(),
  duration_ms: z.number().int().min(1).max(10_000).optional(),
  /** The capture the input was planned on: its pixels around the point must still be there. */
  bound: z.string().max(100).optional(),
  /** The focused window at check time: keys refuse stale_screen when the focus moved since. */
  focus: z.string().max(100).optional(),
  /**
   * Keys or text a session rule allowed (docs/supervision.md#rules-and-keys): sent one key (or one
   * character) at a time, the focus read again before each, and the rest refused the moment it is
   * not in this window (and on this element) any more.
   */
  stay: z.strictObject({ window: z.string().max(100), element: z.string().max(500).optional() }).optional(),
  /** Check exclusions and binding, name the element at the point, and build the card's picture; dispatch nothing. */
  check_only: z.boolean().optional(),
  /** After dispatch, answer a small picture of the screen as it is then (for the receipts timeline). */
  after_picture: z.boolean().optional(),
});
export type ScreenInputParams = z.infer<typeof ScreenInputParams>;

export const ScreenInputResult = z.object({
  /** The input path, e.g. x11:XTEST.FakeInput. */
  path: z.string().max(100),
  dispatched: z.boolean(),
  /** The window under the point, or the focused window for keys. */
  window: ScreenWindow.optional(),
  element: PointElement.optional(),
  /** True when the keyboard focus is on a password field (text and keys are masked everywhere). */
  focus_password: z.boolean().optional(),
  /** check_only: a fresh capture the input is bound to when it was bound to none (raw points, keys). */
  fresh: ScreenCaptureResult.omit({ window: true }).optional(),
  /**
   * check_only: a full-resolution crop around the point, or around the element with the keyboard
   * focus (`outline`, its rectangle); `grown`: larger than the usual crop, to show something.
   */
  crop: z.object({ image: EncodedImage, rect: PhysicalRect, outline: PhysicalRect.optional(), grown: z.boolean().optional() }).optional(),
  /** Share of the bound region's pixels that changed (0–1), as checked. */
  changed: z.number().min(0).max(1).optional(),
  /** With after_picture: the screen right after the input, small, masked like every capture. */
  after_picture: EncodedImage.optional(),
  /**
   * The desktop tells no program where windows are (Wayland, docs/wayland.md#windows-and-coordinates):
   * the window and element there are unknown, and nothing was masked or refused by place.
   */
  windows_unknown: z.literal(true).optional(),
});
export type ScreenInputResult = z.infer<typeof ScreenInputResult>;

/**
 * The desktop's own consents to the screen tier (docs/wayland.md#consent), for Settings → Screen:
 * where the desktop asks the person (Wayland's portals), what they answered; `forget` drops the
 * standing answers (the screenshot permission, a refusal, a kept restore token) so it asks again.
 */
export const ScreenConsentParams = z.strictObject({ forget: z.boolean().optional() });
export const ScreenConsent = z.object({
  /** Whether this desktop asks the person at all (false on X11 and Windows, which ask nothing). */
  asks: z.boolean(),
  /** `given`, `not_yet_given`, `refused`, `view_only`, `stopped`. */
  screenshots: z.string().max(40).optional(),
  input: z.string().max(40).optional(),
  /** True where the input consent lasts only as long as the helper runs (RemoteDesktop version 1). */
  input_per_session: z.boolean().optional(),
  forgotten: z.boolean().optional(),
  /**
   * True where no program is told where windows are (Wayland): the supervisor's own window is not
   * masked in screenshots nor kept from clicks, and decisions wait out each agent input instead
   * (docs/security.md#screen-input-where-windows-are-unknown).
   */
  windows_unknown: z.boolean().optional(),
});
export type ScreenConsent = z.infer<typeof ScreenConsent>;

/** The helper's screen methods, merged into its method table. */
export const SCREEN_METHODS = {
  screen_capabilities: { params: z.strictObject({}), result: CapabilitiesAnswer },
  screen_capture: { params: ScreenCaptureParams, result: ScreenCaptureResult },
  screen_input: { params: ScreenInputParams, result: ScreenInputResult },
  screen_cursor: { params: z.strictObject({}), result: Point },
  screen_consent: { params: ScreenConsentParams, result: ScreenConsent },
} as const;

/** What a screen input did or would do, in the receipt and on the card. */
export const ScreenInputDetail = z.object({
  /** The screenshot the input was planned on; absent when it was bound to a capture made for the card (raw points, keys). */
  screenshot: z.string().max(100).optional(),
  /** The point in the screenshot's image pixels, and the physical pixel it maps to. */
  point: Point.optional(),
  physical: Point.optional(),
  to: Point.optional(),
  to_physical: Point.optional(),
  button: MouseButton.optional(),
  count: z.number().int().min(1).max(3).optional(),
  direction: z.enum(['up', 'down', 'left', 'right']).optional(),
  amount: z.number().int().optional(),
  /** The keys in canonical spelling (docs/keys.md). */
  keys: z.string().max(1000).optional(),
  duration_ms: z.number().int().optional(),
  /** The window under the point, or the focused window for keys. */
  window: ScreenWindow.optional(),
  /** The element the tree names there. */
  element: PointElement.optional(),
  /** Share of the bound region's pixels that had changed when checked. */
  changed: z.number().optional(),
  /** SHA-256 of the picture of the screen after the input, kept for the receipts timeline. */
  after_sha256: z.string().optional(),
  /** Keys or text stopped part way (the focus left what a session rule covers): how far it got. */
  sent: z.object({ count: z.number().int().nonnegative(), of: z.number().int().nonnegative(), unit: z.enum(['keys', 'characters']) }).optional(),
  /** The desktop tells no program where windows are: the card says the window and element there are unknown. */
  windows_unknown: z.literal(true).optional(),
});
export type ScreenInputDetail = z.infer<typeof ScreenInputDetail>;

/** The picture on a screen input's card: the image the agent planned on with the input marked, and a full-resolution crop. */
export const ScreenCard = z.object({
  /** data: URL of the picture. */
  picture: z.string().max(8_000_000),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  /** True: the screenshot the agent planned on; false: captured for this card (the input named no screenshot). */
  planned: z.boolean(),
  /** Marks in picture pixels. */
  point: Point.optional(),
  to: Point.optional(),
  direction: z.enum(['up', 'down', 'left', 'right']).optional(),
  /** Picture rectangles blacked out (the supervisor, excluded apps). */
  masked: z.array(ImageRect).max(1000),
  /**
   * The screen at full resolution around the point (`point`, crop pixels), or around the element
   * with the keyboard focus (`outline`, crop pixels); `whole`: the crop grew to show something and
   * is shown whole, shrunk, rather than 1:1 around its point.
   */
  crop: z
    .object({
      picture: z.string().max(2_000_000),
      width: z.number().int().positive(),
      height: z.number().int().positive(),
      point: Point.optional(),
      outline: ImageRect.optional(),
      whole: z.boolean().optional(),
    })
    .optional(),
  /** The element's rectangle in picture pixels: element_act's, or the one with the keyboard focus that keys and text go to. */
  outline: ImageRect.optional(),
  sha256: z.string().max(100),
  bytes: z.number().int().nonnegative(),
});
export type ScreenCard = z.infer<typeof ScreenCard>;
