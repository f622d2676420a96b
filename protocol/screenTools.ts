// The screen tier's tools as agents call them: each tool's arguments and its answer (the MCP
// outputSchema and structuredContent), one table beside the accessibility tools' TOOL_ARGS/TOOL_ANSWERS.
import { z } from 'zod';
import {
  ButtonArgs,
  CapabilitiesArgs,
  ClickArgs,
  CursorPositionArgs,
  DragArgs,
  HoldKeyArgs,
  KeyArgs,
  MoveArgs,
  MultiClickArgs,
  ScreenshotArgs,
  ScreenshotId,
  ScrollArgs,
  TypeTextArgs,
  WaitArgs,
  type ScreenToolName,
} from './screenArgs.js';
import { ImageRect, Point, ScreenTransform } from './screenGeometry.js';
import { CapabilitiesAnswer } from './screenRpc.js';
import { Receipt, ScreenAction } from './tools.js';

/** How an answer's text is rendered, as for every tool (a screenshot's image comes beside it either way). */
const output = z.enum(['text', 'json']).describe('"text" (default): compact; "json": the structured answer as text.').optional();
const withOutput = <T extends z.ZodRawShape>(schema: z.ZodObject<T>) => schema.extend({ output });

export const SCREEN_TOOL_ARGS = {
  capabilities: withOutput(CapabilitiesArgs),
  screenshot: withOutput(ScreenshotArgs),
  click: withOutput(ClickArgs),
  double_click: withOutput(MultiClickArgs),
  triple_click: withOutput(MultiClickArgs),
  move: withOutput(MoveArgs),
  left_click_drag: withOutput(DragArgs),
  mouse_down: withOutput(ButtonArgs),
  mouse_up: withOutput(ButtonArgs),
  scroll: withOutput(ScrollArgs),
  type_text: withOutput(TypeTextArgs),
  key: withOutput(KeyArgs),
  hold_key: withOutput(HoldKeyArgs),
  cursor_position: withOutput(CursorPositionArgs),
  wait: withOutput(WaitArgs),
} as const satisfies Record<ScreenToolName, z.ZodType>;

/** The screenshot answer's structuredContent (the image itself is an MCP image content block). */
export const ScreenshotAnswer = z.strictObject({
  screenshot: ScreenshotId,
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  scale_x: ScreenTransform.shape.scale_x,
  scale_y: ScreenTransform.shape.scale_y,
  origin: Point,
  capture_path: z.string().min(1).max(100).describe('How the pixels were read, e.g. "x11:MIT-SHM.GetImage"; a degraded path is named here.'),
  window: z.string().min(1).max(200).optional(),
  masked: z.array(ImageRect).describe('Image rectangles blacked out: the supervisor itself and excluded apps.'),
  approx_tokens: z.number().int().nonnegative(),
});
export type ScreenshotAnswer = z.infer<typeof ScreenshotAnswer>;

/** cursor_position's answer: physical pixels, and image pixels of the latest screenshot when it contains the cursor. */
export const CursorAnswer = z.object({ x: z.number().int(), y: z.number().int(), screenshot: ScreenshotId.optional(), image: Point.optional() });
export type CursorAnswer = z.infer<typeof CursorAnswer>;

/** A screen input's receipt: the receipt without what only element_act has (target, after, window), so every input tool's schema stays small. */
export const ScreenReceipt = Receipt.omit({
  target: true,
  after: true,
  window: true,
  stopped_before_timeout_ms: true,
  last_walk_ms: true,
  verification_detail: true,
}).extend({ action: ScreenAction });

export const WaitAnswer = z.object({ waited_ms: z.number().int().nonnegative() });

export const SCREEN_TOOL_ANSWERS = {
  capabilities: CapabilitiesAnswer,
  screenshot: ScreenshotAnswer,
  click: ScreenReceipt,
  double_click: ScreenReceipt,
  triple_click: ScreenReceipt,
  move: ScreenReceipt,
  left_click_drag: ScreenReceipt,
  mouse_down: ScreenReceipt,
  mouse_up: ScreenReceipt,
  scroll: ScreenReceipt,
  type_text: ScreenReceipt,
  key: ScreenReceipt,
  hold_key: ScreenReceipt,
  cursor_position: CursorAnswer,
  wait: WaitAnswer,
} as const satisfies Record<ScreenToolName, z.ZodType>;

/** The screen tools that change something (supervised, with receipts), and the action each is journaled, carded and ruled as. */
export const SCREEN_INPUT_ACTIONS = {
  click: 'click',
  double_click: 'click',
  triple_click: 'click',
  move: 'move',
  left_click_drag: 'left_click_drag',
  mouse_down: 'mouse_down',
  mouse_up: 'mouse_up',
  scroll: 'scroll',
  type_text: 'type_text',
  key: 'key',
  hold_key: 'hold_key',
} as const satisfies Partial<Record<ScreenToolName, ScreenAction>>;
export const SCREEN_INPUT_TOOLS: ReadonlySet<ScreenToolName> = new Set(Object.keys(SCREEN_INPUT_ACTIONS) as ScreenToolName[]);
