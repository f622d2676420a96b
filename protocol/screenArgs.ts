// The screen tier's tool arguments (docs/tools.md#screen-tier): the tools' names, the limits of what
// they accept, and each tool's argument schema, loose where models are loose (protocol/coords.ts).
import { z } from 'zod';

/** Names of the screen tier's tools. */
export const SCREEN_TOOL_NAMES = [
  'capabilities',
  'screenshot',
  'click',
  'double_click',
  'triple_click',
  'move',
  'left_click_drag',
  'mouse_down',
  'mouse_up',
  'scroll',
  'type_text',
  'key',
  'hold_key',
  'cursor_position',
  'wait',
] as const;
export type ScreenToolName = (typeof SCREEN_TOOL_NAMES)[number];

/** Default and ceiling of a screenshot's size, in image pixels. */
export const SCREENSHOT_LIMITS = { max_width: { default: 1280, min: 1, ceiling: 4096 }, max_height: { default: 800, min: 1, ceiling: 4096 } } as const;
/** Longest wait, hold and text accepted. */
export const MAX_WAIT_MS = 10_000;
export const MAX_HOLD_MS = 10_000;
export const MAX_TYPE_TEXT_CHARS = 100_000;
export const MAX_KEYS_CHARS = 1000;

/** A screenshot id as issued in a screenshot answer. */
export const ScreenshotId = z
  .string()
  .regex(/^S[A-Za-z0-9_-]{1,99}$/)
  .describe('A screenshot id ("S…") from an earlier screenshot answer: coordinates are in its image space. Default: your latest screenshot.');

/**
 * The JSON Schema a loose argument is listed with in tools/list: the canonical shape, which costs a
 * fraction of the tokens its loose union would (the normalizer still accepts the rest).
 */
export const ADVERTISED_AS = new WeakMap<z.ZodType, Record<string, unknown>>();

/** A point in image pixels, as one number or a digit string. */
const axis = (which: string) => {
  const schema = z
    .union([z.number(), z.string().max(40), z.array(z.union([z.number(), z.string().max(20)])).max(4)])
    .describe(`${which} in image pixels of the screenshot (0 = left/top edge). A pair [x, y] or "x,y" here is accepted too.`);
  // Listed as what models should send (an integer); the other shapes are accepted, not advertised.
  ADVERTISED_AS.set(schema, { type: 'integer', description: `${which}, image pixels of the screenshot (0 = left/top edge).` });
  return schema;
};

function advertised<T extends z.ZodType>(schema: T, json: Record<string, unknown>): T {
  ADVERTISED_AS.set(schema, json);
  return schema;
}

/** Point fields, loose on purpose: protocol/coords.ts normalizes every shape models emit and refuses the ambiguous ones. */
const pointFields = {
  x: axis('X').optional(),
  y: axis('Y').optional(),
  coordinate: advertised(
    z.union([z.array(z.union([z.number(), z.string().max(20)])).max(4), z.string().max(40)]).describe('The point as [x, y], instead of x and y.'),
    { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2, description: 'The point as [x, y], instead of x and y.' },
  ).optional(),
};
const bindingFields = {
  screenshot: ScreenshotId.optional(),
  raw: z.boolean().describe('true: x and y are physical screen pixels, not image pixels of a screenshot.').optional(),
};

/** Mouse buttons. */
export const MouseButton = z.enum(['left', 'right', 'middle']).describe('Mouse button; default left.');
export type MouseButton = z.infer<typeof MouseButton>;

/** capabilities arguments: none. */
export const CapabilitiesArgs = z.strictObject({});
export type CapabilitiesArgs = z.infer<typeof CapabilitiesArgs>;

/** screenshot arguments. */
export const ScreenshotArgs = z.strictObject({
  window: z.string().min(1).max(200).describe('A window id from window_list: capture only that window. Default: the whole screen.').optional(),
  max_width: z
    .number()
    .int()
    .min(1)
    .max(SCREENSHOT_LIMITS.max_width.ceiling)
    .describe('Widest image; the screen is downscaled to fit, aspect kept. Default 1280.')
    .optional(),
  max_height: z.number().int().min(1).max(SCREENSHOT_LIMITS.max_height.ceiling).describe('Tallest image. Default 800.').optional(),
  format: z.enum(['png', 'jpeg']).describe('Image format; default png.').optional(),
  quality: z.number().int().min(1).max(100).describe('JPEG quality 1–100; ignored for png.').optional(),
});
export type ScreenshotArgs = z.infer<typeof ScreenshotArgs>;

/** click arguments (double_click and triple_click take the same, without count). */
export const ClickArgs = z.strictObject({
  ...pointFields,
  ...bindingFields,
  button: MouseButton.optional(),
  count: z.number().int().min(1).max(3).describe('1 (default), 2 for a double click, 3 for a triple click.').optional(),
});
export type ClickArgs = z.infer<typeof ClickArgs>;

/** double_click and triple_click arguments. */
export const MultiClickArgs = z.strictObject({ ...pointFields, ...bindingFields, button: MouseButton.optional() });
export type MultiClickArgs = z.infer<typeof MultiClickArgs>;

/** move arguments. */
export const MoveArgs = z.strictObject({ ...pointFields, ...bindingFields });
export type MoveArgs = z.infer<typeof MoveArgs>;

/** left_click_drag arguments: press at x, y, release at to_x, to_y. */
export const DragArgs = z.strictObject({
  ...pointFields,
  ...bindingFields,
  to_x: axis('Release X').optional(),
  to_y: axis('Release Y').optional(),
});
export type DragArgs = z.infer<typeof DragArgs>;

/** mouse_down and mouse_up arguments. */
export const ButtonArgs = z.strictObject({ button: MouseButton.optional() });
export type ButtonArgs = z.infer<typeof ButtonArgs>;

/** scroll arguments. */
export const ScrollArgs = z.strictObject({
  ...pointFields,
  ...bindingFields,
  direction: z.enum(['up', 'down', 'left', 'right']).describe('Which way the content moves into view, as a mouse wheel does.'),
  amount: z.number().int().min(1).max(50).describe('Wheel detents, one notch each; default 3.').optional(),
});
export type ScrollArgs = z.infer<typeof ScrollArgs>;

/** type_text arguments. */
export const TypeTextArgs = z.strictObject({
  text: z.string().min(1).max(MAX_TYPE_TEXT_CHARS).describe('Text typed exactly as given, any Unicode; use key for shortcuts.'),
});
export type TypeTextArgs = z.infer<typeof TypeTextArgs>;

/** key arguments. */
export const KeyArgs = z.strictObject({
  keys: z
    .string()
    .min(1)
    .max(MAX_KEYS_CHARS)
    .describe('A key or combo: "Return", "ctrl+s", "F5"; several separated by spaces are pressed in turn ("ctrl+a ctrl+c"). Vocabulary: docs/keys.md.'),
});
export type KeyArgs = z.infer<typeof KeyArgs>;

/** hold_key arguments. */
export const HoldKeyArgs = z.strictObject({
  keys: KeyArgs.shape.keys,
  duration_ms: z.number().int().min(1).max(MAX_HOLD_MS).describe(`How long to hold, at most ${MAX_HOLD_MS} ms.`),
});
export type HoldKeyArgs = z.infer<typeof HoldKeyArgs>;

/** cursor_position arguments: none. */
export const CursorPositionArgs = z.strictObject({});
export type CursorPositionArgs = z.infer<typeof CursorPositionArgs>;

/** wait arguments. */
export const WaitArgs = z.strictObject({ ms: z.number().int().min(0).max(MAX_WAIT_MS).describe(`Milliseconds to wait, at most ${MAX_WAIT_MS}.`) });
export type WaitArgs = z.infer<typeof WaitArgs>;
