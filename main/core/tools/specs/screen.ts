// The screen tier (docs/tools.md#screen-tier): screenshots, pointer and keys, when the person offers it.
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  type SCREEN_INPUT_ACTIONS,
  SCREEN_TOOL_ANSWERS,
  SCREEN_TOOL_ARGS,
  type CapabilitiesAnswer,
  type ScreenshotAnswer,
  type ScreenToolName,
} from '../../../../protocol/index.js';
import { renderReceipt } from '../render.js';
import { renderCapabilities, renderCursor, renderScreenshot } from '../renderScreen.js';
import { capabilities, cursorPosition, screenInput, screenshot, wait } from '../screenTools.js';
import { readOnly, toolSpec, type TierOf, type ToolImage, type ToolSpec } from './toolSpec.js';

const INPUT_NOTE = ' Supervised: waits for a person like element_act (answer "pending" → action_wait).';
const POINT_NOTE = ' x, y are image pixels of your latest screenshot (or screenshot: "S…"; raw: true for physical pixels).';

const supervisedInput = (title: string): Tool['annotations'] => ({
  title,
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
});

/** A screen input tool: supervised, answered by a receipt (screenTools.ts plans, checks and dispatches it). */
function input<N extends keyof typeof SCREEN_INPUT_ACTIONS>(name: N, description: string, title: string): ToolSpec<N> {
  return toolSpec({
    name,
    // TierOf<N> of a generic N is not worked out; every input tool is a screen tool.
    tier: 'screen' as TierOf<N>,
    args: SCREEN_TOOL_ARGS[name],
    answer: SCREEN_TOOL_ANSWERS[name],
    description,
    annotations: supervisedInput(title),
    run: (ctx, args) => screenInput(ctx.act, ctx.session, name, args as Record<string, unknown>, ctx.signal, ctx.progress, ctx.braked),
    render: renderReceipt,
    receipt: true,
  });
}

/** What the journal keeps of a screenshot: its id, size and hash, never its pixels. */
function screenshotSummary(shot: { answer: ScreenshotAnswer; image: ToolImage }): Record<string, unknown> {
  const a = shot.answer;
  const bytes = Math.floor((shot.image.data.length * 3) / 4) - (shot.image.data.endsWith('==') ? 2 : shot.image.data.endsWith('=') ? 1 : 0);
  return {
    id: a.screenshot,
    width: a.width,
    height: a.height,
    masked: a.masked.length,
    mime: shot.image.mimeType,
    bytes,
    sha256: createHash('sha256').update(Buffer.from(shot.image.data, 'base64')).digest('hex'),
  };
}

/** The screen tier's tools, in listing order. */
export const SCREEN_SPECS = {
  capabilities: toolSpec({
    name: 'capabilities',
    tier: 'screen',
    args: SCREEN_TOOL_ARGS.capabilities,
    answer: SCREEN_TOOL_ANSWERS.capabilities,
    description: 'What the screen tier can do here: session (x11, wayland, windows), capture and input paths and their named degradations, monitors.',
    annotations: readOnly('Screen capabilities'),
    // The answer names the connection it describes (the agent's active one when the call began).
    run: async (ctx): Promise<CapabilitiesAnswer> => ({
      ...(await ctx.untilBraked(capabilities(ctx.act, ctx.session, ctx.signal))),
      active_connection: ctx.where,
    }),
    render: renderCapabilities,
  }),
  screenshot: toolSpec({
    name: 'screenshot',
    tier: 'screen',
    args: SCREEN_TOOL_ARGS.screenshot,
    answer: SCREEN_TOOL_ANSWERS.screenshot,
    description:
      'Capture the screen, or one window (window id from window_list), downscaled to fit max_width × max_height. Answers the image and the exact transform: physical = origin + image × scale. The supervisor and excluded apps are masked.',
    annotations: readOnly('Screenshot'),
    run: (ctx, args) => ctx.untilBraked(screenshot(ctx.act, ctx.session, args, ctx.signal)),
    image: (shot) => shot,
    render: renderScreenshot,
    journal: (shot) => ({ screenshot: screenshotSummary(shot) }),
  }),
  click: input('click', `Click at x, y (button, count 1–3).${POINT_NOTE}${INPUT_NOTE}`, 'Click (supervised)'),
  double_click: input('double_click', `Double-click at x, y.${POINT_NOTE}${INPUT_NOTE}`, 'Double-click (supervised)'),
  triple_click: input('triple_click', `Triple-click at x, y.${POINT_NOTE}${INPUT_NOTE}`, 'Triple-click (supervised)'),
  move: input('move', `Move the pointer to x, y.${POINT_NOTE}${INPUT_NOTE}`, 'Move the pointer (supervised)'),
  left_click_drag: input('left_click_drag', `Press at x, y, drag to to_x, to_y, release.${POINT_NOTE}${INPUT_NOTE}`, 'Drag (supervised)'),
  mouse_down: input('mouse_down', `Press a button where the pointer is.${INPUT_NOTE}`, 'Press a button (supervised)'),
  mouse_up: input('mouse_up', `Release a button where the pointer is.${INPUT_NOTE}`, 'Release a button (supervised)'),
  scroll: input(
    'scroll',
    `Turn the wheel amount detents (1:1 notches) at x, y (default: where the pointer is).${POINT_NOTE}${INPUT_NOTE}`,
    'Scroll (supervised)',
  ),
  type_text: input('type_text', `Type text exactly, any Unicode, into the focused window.${INPUT_NOTE}`, 'Type text (supervised)'),
  key: input('key', `Press keys: "Return", "ctrl+s", "ctrl+a ctrl+c" (docs/keys.md: enter, esc, cmd… are aliases).${INPUT_NOTE}`, 'Press keys (supervised)'),
  hold_key: input('hold_key', `Hold keys for duration_ms (≤ 10000).${INPUT_NOTE}`, 'Hold keys (supervised)'),
  cursor_position: toolSpec({
    name: 'cursor_position',
    tier: 'screen',
    args: SCREEN_TOOL_ARGS.cursor_position,
    answer: SCREEN_TOOL_ANSWERS.cursor_position,
    description: 'Where the pointer is: physical pixels, and image pixels of your latest screenshot when it shows the pointer.',
    annotations: readOnly('Pointer position'),
    run: (ctx) => ctx.untilBraked(cursorPosition(ctx.act, ctx.session, ctx.signal)),
    render: renderCursor,
  }),
  wait: toolSpec({
    name: 'wait',
    tier: 'screen',
    args: SCREEN_TOOL_ARGS.wait,
    answer: SCREEN_TOOL_ANSWERS.wait,
    description: 'Wait ms milliseconds (at most 10000) before looking again, e.g. while an application redraws.',
    annotations: readOnly('Wait'),
    run: (ctx, args) => ctx.untilBraked(wait(args, ctx.signal)),
    render: (answer) => `waited ${answer.waited_ms} ms`,
  }),
} as const satisfies { [N in ScreenToolName]: ToolSpec<N> };
