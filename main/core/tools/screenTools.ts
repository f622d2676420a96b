// The screen tier's tools (docs/tools.md#screen-tier). Reads (capabilities,
// screenshot, cursor_position, wait) answer at once; every input goes through the supervised flow
// like element_act: the helper checks it first (excluded_target, stale_screen, the element at the
// point, the card's pictures), then policy, brakes and a person, then the helper checks the binding
// again right before it dispatches exactly what the card showed.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  MASKED_TEXT,
  OverseerError,
  SCREEN_INPUT_ACTIONS,
  errorInfo,
  fail,
  formatKeys,
  imageToPhysical,
  normalizePoint,
  parseKeys,
  physicalToImage,
  type CapabilitiesAnswer,
  type CursorAnswer,
  type ErrorInfo,
  type KeyCombo,
  type Point,
  type Receipt,
  type ScreenApproval,
  type ScreenCard,
  type ScreenInputDetail,
  type ScreenCaptureResult,
  type ScreenInputParams,
  type ScreenInputResult,
  type ScreenshotAnswer,
  type ScreenshotArgs,
  type ScreenToolName,
  type WaitArgs,
} from '../../../protocol/index.js';
import { typedRiskHints } from '../supervision/riskHints.js';
import { keysOutOfScope, textOutOfScope } from '../supervision/ruleScope.js';
import type { ScreenshotRecord } from '../session/screenshots.js';
import type { AgentSession } from '../session/agentSession.js';
import { connectionRef, refused, supervise, type ActDeps, type Checked, type Progress } from './supervisedFlow.js';

/** Image tokens as the common estimate has them: one token per 750 pixels (Anthropic's formula for images). */
export const PIXELS_PER_TOKEN = 750;

export async function capabilities(deps: Pick<ActDeps, 'helper'>, session: AgentSession, signal: AbortSignal): Promise<CapabilitiesAnswer> {
  return deps.helper.call('screen_capabilities', {}, { signal, timeoutMs: 10_000, ...session.via });
}

export async function screenshot(
  deps: Pick<ActDeps, 'helper'>,
  session: AgentSession,
  args: ScreenshotArgs,
  signal: AbortSignal,
): Promise<{ answer: ScreenshotAnswer; image: { data: string; mimeType: string } }> {
  const { output: _output, ...capture } = args as ScreenshotArgs & { output?: string };
  const via = session.via;
  const result = await deps.helper.call('screen_capture', capture, { signal, timeoutMs: 20_000, ...via });
  const record = session.screenshots.add(result);
  session.bindings.note('screenshot', record.id, via.connection);
  const answer: ScreenshotAnswer = {
    screenshot: record.id,
    width: record.width,
    height: record.height,
    scale_x: result.transform.scale_x,
    scale_y: result.transform.scale_y,
    origin: result.transform.origin,
    capture_path: result.capture_path,
    masked: result.masked,
    approx_tokens: Math.ceil((record.width * record.height) / PIXELS_PER_TOKEN),
    ...(result.window !== undefined ? { window: result.window.window } : {}),
  };
  return { answer, image: { data: result.image.data, mimeType: result.image.mime } };
}

export async function cursorPosition(deps: Pick<ActDeps, 'helper'>, session: AgentSession, signal: AbortSignal): Promise<CursorAnswer> {
  const at = await deps.helper.call('screen_cursor', {}, { signal, timeoutMs: 5000, ...session.via });
  const latest = session.screenshots.latest;
  if (latest === undefined) return at;
  const image = physicalToImage(latest.transform, at.x, at.y);
  if (image.x < 0 || image.y < 0 || image.x >= latest.width || image.y >= latest.height) return at;
  return { ...at, screenshot: latest.id, image };
}

export async function wait(args: WaitArgs, signal: AbortSignal): Promise<{ waited_ms: number }> {
  const started = Date.now();
  await sleep(args.ms, undefined, { signal }).catch(() => undefined);
  return { waited_ms: Date.now() - started };
}

/** An input as the helper takes it, the record it was planned on, and what the receipt says of it. */
interface Planned {
  params: ScreenInputParams;
  record?: ScreenshotRecord | undefined;
  detail: ScreenInputDetail;
  text?: string;
}

/** One point of the arguments (x/y or coordinate, or to_x/to_y): image pixels of the screenshot, or physical with raw. */
function pointOf(session: AgentSession, args: Record<string, unknown>, which: 'from' | 'to'): { image?: Point; physical: Point; record?: ScreenshotRecord } {
  const raw = args['raw'] === true;
  const names = which === 'from' ? { x: 'x', y: 'y', pair: 'coordinate' } : { x: 'to_x', y: 'to_y' };
  const p = normalizePoint(args, { allowNegative: raw, names });
  if (raw) return { physical: p };
  const record = session.screenshots.resolve(typeof args['screenshot'] === 'string' ? args['screenshot'] : undefined);
  if (p.x >= record.width || p.y >= record.height)
    throw fail('invalid_argument', `${names.x},${names.y} ${p.x},${p.y} lies outside screenshot ${record.id} (${record.width}x${record.height})`, {
      issues: [{ path: names.x, message: `outside the ${record.width}x${record.height} image` }],
    });
  return { image: p, physical: imageToPhysical(record.transform, p.x, p.y), record };
}

function hasPoint(args: Record<string, unknown>): boolean {
  return args['x'] !== undefined || args['y'] !== undefined || args['coordinate'] !== undefined;
}

/** The tool's arguments as one helper input (physical pixels, parsed keys) and the receipt's detail. */
function plan(session: AgentSession, tool: ScreenToolName, args: Record<string, unknown>): Planned {
  const detail: ScreenInputDetail = {};
  const button = (args['button'] as ScreenInputParams['button']) ?? undefined;
  const pointed = (op: ScreenInputParams['op'], which = pointOf(session, args, 'from')): Planned => {
    const params: ScreenInputParams = { op, point: which.physical };
    if (which.record !== undefined) {
      params.bound = which.record.capture;
      detail.screenshot = which.record.id;
    }
    if (which.image !== undefined) detail.point = which.image;
    detail.physical = which.physical;
    return { params, record: which.record, detail };
  };
  const keys = (): KeyCombo[] => parseKeys(String(args['keys']));
  switch (tool) {
    case 'click':
    case 'double_click':
    case 'triple_click': {
      const p = pointed('click');
      p.params.count = tool === 'double_click' ? 2 : tool === 'triple_click' ? 3 : ((args['count'] as number | undefined) ?? 1);
      if (button !== undefined) p.params.button = button;
      Object.assign(detail, { count: p.params.count, button: button ?? 'left' });
      return p;
    }
    case 'move':
      return pointed('move');
    case 'left_click_drag': {
      const from = pointOf(session, args, 'from');
      const to = pointOf(session, args, 'to');
      const p = pointed('drag', from);
      p.params.to = to.physical;
      if (to.image !== undefined) detail.to = to.image;
      detail.to_physical = to.physical;
      return p;
    }
    case 'mouse_down':
    case 'mouse_up': {
      const params: ScreenInputParams = { op: tool === 'mouse_down' ? 'down' : 'up', ...(button !== undefined ? { button } : {}) };
      detail.button = button ?? 'left';
      return { params, detail };
    }
    case 'scroll': {
      const direction = args['direction'] as NonNullable<ScreenInputParams['direction']>;
      const amount = (args['amount'] as number | undefined) ?? 3;
      Object.assign(detail, { direction, amount });
      if (!hasPoint(args)) return { params: { op: 'scroll', direction, amount }, detail };
      const p = pointed('scroll');
      Object.assign(p.params, { direction, amount });
      return p;
    }
    case 'type_text':
      return { params: { op: 'type', text: String(args['text']) }, detail, text: String(args['text']) };
    case 'key': {
      const combos = keys();
      detail.keys = formatKeys(combos);
      return { params: { op: 'key', keys: combos }, detail };
    }
    case 'hold_key': {
      const combos = keys();
      detail.keys = formatKeys(combos);
      detail.duration_ms = args['duration_ms'] as number;
      return { params: { op: 'hold', keys: combos, duration_ms: args['duration_ms'] as number }, detail };
    }
    default:
      throw fail('invalid_argument', `${tool} is not an input tool`);
  }
}

/** A capture as a card picture no agent planned on (made for the card). */
export function pictureOf(shot: Pick<ScreenCaptureResult, 'image' | 'masked' | 'sha256' | 'bytes'>): ScreenCard {
  return {
    picture: `data:${shot.image.mime};base64,${shot.image.data}`,
    width: shot.image.width,
    height: shot.image.height,
    planned: false,
    masked: shot.masked,
    sha256: shot.sha256,
    bytes: shot.bytes,
  };
}

/** The card's picture: the screenshot planned on, with the input marked in its pixels; else the capture the check made. */
function cardPicture(planned: Planned, check: ScreenInputResult): ScreenCard | undefined {
  const physical = planned.detail.physical;
  let card: ScreenCard | undefined;
  const record = planned.record;
  if (record !== undefined) {
    card = {
      picture: record.picture,
      width: record.width,
      height: record.height,
      planned: true,
      masked: record.masked,
      sha256: record.sha256,
      bytes: record.bytes,
    };
    if (planned.detail.point !== undefined) card.point = planned.detail.point;
    if (planned.detail.to !== undefined) card.to = planned.detail.to;
  } else if (check.fresh !== undefined) {
    const f = check.fresh;
    card = pictureOf(f);
    if (physical !== undefined) card.point = physicalToImage(f.transform, physical.x, physical.y);
    if (planned.detail.to_physical !== undefined) card.to = physicalToImage(f.transform, planned.detail.to_physical.x, planned.detail.to_physical.y);
  }
  if (card === undefined) return undefined;
  if (planned.detail.direction !== undefined) card.direction = planned.detail.direction;
  if (check.crop !== undefined) {
    const c = check.crop;
    card.crop = {
      picture: `data:${c.image.mime};base64,${c.image.data}`,
      width: c.image.width,
      height: c.image.height,
      ...(physical !== undefined ? { point: { x: physical.x - c.rect.x, y: physical.y - c.rect.y } } : {}),
      ...(c.outline !== undefined ? { outline: { x: c.outline.x - c.rect.x, y: c.outline.y - c.rect.y, w: c.outline.width, h: c.outline.height } } : {}),
      ...(c.grown === true ? { whole: true } : {}),
    };
  }
  // Keys and text: the element with the focus outlined on the picture captured for the card too.
  const focus = physical === undefined ? check.crop?.outline : undefined;
  if (focus !== undefined && check.fresh !== undefined && record === undefined) card.outline = rectOnImage(check.fresh.transform, focus);
  return card;
}

/** A physical rectangle in a capture's image pixels. */
function rectOnImage(transform: ScreenCaptureResult['transform'], r: { x: number; y: number; width: number; height: number }): ScreenCard['outline'] {
  const a = physicalToImage(transform, r.x, r.y);
  const b = physicalToImage(transform, r.x + r.width, r.y + r.height);
  return { x: a.x, y: a.y, w: Math.max(1, b.x - a.x), h: Math.max(1, b.y - a.y) };
}

/** How far rule-covered keys or text got before the focus left the rule's reach (the helper's `data`). */
function stoppedAt(data: Record<string, unknown>): ScreenInputDetail['sent'] | undefined {
  const { sent, of, unit } = data;
  if (typeof sent !== 'number' || typeof of !== 'number' || (unit !== 'keys' && unit !== 'characters')) return undefined;
  return { count: sent, of, unit };
}

/** A refusal the helper made before dispatching anything (its checks run first) stays a refusal. */
const REFUSED_BEFORE_DISPATCH = new Set(['stale_screen', 'excluded_target', 'invalid_argument', 'input_unavailable', 'capture_unavailable']);

/**
 * One screen input: plan it in physical pixels, have the helper check it (nothing dispatched), then
 * the supervised flow; the dispatch repeats the helper's checks, bound to the same capture and focus.
 */
export function screenInput(
  deps: ActDeps,
  session: AgentSession,
  tool: ScreenToolName,
  args: Record<string, unknown>,
  signal: AbortSignal,
  progress: Progress | undefined,
  braked: Promise<ErrorInfo>,
): Promise<Receipt> {
  const action = Object.hasOwn(SCREEN_INPUT_ACTIONS, tool) ? SCREEN_INPUT_ACTIONS[tool as keyof typeof SCREEN_INPUT_ACTIONS] : undefined;
  if (action === undefined) return Promise.reject(fail('invalid_argument', `${tool} is not an input tool`));
  const receiptId = `R${randomBytes(9).toString('base64url')}`;
  const r: Receipt = {
    receipt_id: receiptId,
    action,
    outcome: 'refused',
    action_call_made: false,
    verification: 'not_checked',
    after_read: { status: 'unavailable' },
  };
  // Where the input goes is fixed when the call begins: the check, the card and the dispatch all go there.
  const via = session.via;
  const check = async (): Promise<Receipt | Checked<ScreenApproval>> => {
    let planned: Planned;
    try {
      planned = plan(session, tool, args);
    } catch (error) {
      if (error instanceof OverseerError && error.code !== 'invalid_argument') return refused(r, error.info);
      throw error;
    }
    r.screen = planned.detail;
    let checked: ScreenInputResult;
    try {
      checked = await deps.helper.call('screen_input', { ...planned.params, check_only: true }, { signal, timeoutMs: 20_000, ...via });
    } catch (error) {
      if (error instanceof OverseerError && REFUSED_BEFORE_DISPATCH.has(error.code)) return refused(r, error.info);
      throw error;
    }
    const detail = planned.detail;
    if (checked.window !== undefined) detail.window = checked.window;
    if (checked.element !== undefined) detail.element = checked.element;
    if (checked.changed !== undefined) detail.changed = checked.changed;
    if (checked.windows_unknown === true) detail.windows_unknown = true;
    // Keys and text are masked everywhere while a password field has the focus.
    const password = checked.focus_password === true;
    if (planned.text !== undefined) r.text = checked.focus_password === true ? MASKED_TEXT : planned.text;
    // Characters pressed as keys into a password field are part of the password too: `•` on the card, receipt and journal.
    if (password && planned.params.keys !== undefined) detail.keys = formatKeys(planned.params.keys, { password: true });
    // The dispatch is bound to what this check saw: the planned screenshot, else the capture made for the card; keys to the focus.
    const dispatchParams: ScreenInputParams = { ...planned.params, ...(deps.keepPicture !== undefined ? { after_picture: true } : {}) };
    if (dispatchParams.bound === undefined && checked.fresh !== undefined && dispatchParams.point !== undefined) dispatchParams.bound = checked.fresh.capture;
    if (planned.params.op === 'type' || planned.params.op === 'key' || planned.params.op === 'hold') dispatchParams.focus = checked.window?.handle ?? 'none';
    const picture = cardPicture(planned, checked);
    // The helper's check always gives one (a fresh capture when the input is bound to no screenshot): a card without it is a bug.
    if (picture === undefined) throw fail('internal', 'the check of a screen input gave no picture for its card');
    const app = checked.window?.app ?? '';
    const card: Checked<ScreenApproval>['card'] = {
      kind: 'screen',
      receipt_id: receiptId,
      session: session.id,
      agent: session.client,
      action,
      password,
      ancestor_path: [],
      connection: connectionRef(deps, via.connection),
      risk_hints: typedRiskHints(checked.focus_password === true ? undefined : planned.text, [checked.element?.name, checked.window?.title, detail.keys]),
      screen: { card: picture, detail },
    };
    if (r.text !== undefined) card.text = r.text;
    return {
      action,
      app,
      element: checked.element?.key ?? checked.window?.handle ?? 'screen',
      mutating: true,
      card,
      journal: {
        app,
        connection: connectionRef(deps, via.connection),
        ...(checked.window?.pid !== undefined ? { pid: checked.window.pid } : {}),
        screen: {
          ...(detail.screenshot !== undefined ? { screenshot: detail.screenshot } : {}),
          ...(detail.physical !== undefined ? { physical: detail.physical } : {}),
          ...(detail.keys !== undefined ? { keys: detail.keys } : {}),
          ...(detail.element !== undefined ? { element: { role: detail.element.role, name: detail.element.name ?? null } } : {}),
          ...(picture !== undefined ? { picture_sha256: picture.sha256, picture_bytes: picture.bytes } : {}),
        },
      },
      outOfRule(scope) {
        const op = planned.params.op;
        if (op !== 'key' && op !== 'hold' && op !== 'type') return undefined;
        // Keys go to whatever has the focus: an element rule covers them only when that element is known.
        if (scope === 'element' && checked.element === undefined)
          return 'the element with the keyboard focus is not known: an element rule does not cover keys';
        if (op === 'type') return textOutOfScope(scope, planned.params.text ?? '');
        return keysOutOfScope(scope, planned.params.keys ?? [], op === 'hold');
      },
      async dispatch(decision, rule) {
        let done: ScreenInputResult;
        const params: ScreenInputParams = { ...dispatchParams };
        // Keys a rule allowed go one at a time while the focus stays where the rule reaches.
        if (rule !== undefined && (params.op === 'key' || params.op === 'type') && checked.window !== undefined)
          params.stay = {
            window: checked.window.handle,
            ...(rule.scope === 'element' && checked.element !== undefined ? { element: checked.element.key } : {}),
          };
        try {
          // Long text types for a while (a few ms a character, more one at a time): the budget grows with it, so a long type is not reported unknown.
          const perChar = params.stay !== undefined ? 80 : 20;
          const budget = 30_000 + (params.duration_ms ?? 0) + [...(params.text ?? '')].length * perChar + (params.keys?.length ?? 0) * 80;
          // In the agent's scope but in no lane: a decided input never waits behind the agent's own reads.
          // Where windows have no known places it may land on the supervisor's own: the person's decisions wait it out.
          const landed = checked.windows_unknown === true ? deps.landing?.begin() : undefined;
          try {
            done = await deps.helper.call('screen_input', params, { timeoutMs: budget, scope: via.scope, connection: via.connection });
          } finally {
            landed?.();
          }
        } catch (error) {
          const sent = error instanceof OverseerError && error.info.data?.['reason'] === 'left_rule_scope' ? stoppedAt(error.info.data) : undefined;
          // Stopped part way: what was sent ran; the rest was refused, and the receipt says how far it got.
          if (sent !== undefined && error instanceof OverseerError) {
            detail.sent = sent;
            if (sent.count > 0) return { ...r, decision, outcome: 'failed', action_call_made: true, error: error.info, path: checked.path, screen: detail };
            return refused({ ...r, screen: detail }, error.info, decision);
          }
          if (error instanceof OverseerError && REFUSED_BEFORE_DISPATCH.has(error.code)) return refused(r, error.info, decision);
          // The helper died or stopped answering after dispatch may have begun: never retried, never guessed.
          const info = error instanceof OverseerError ? error.info : errorInfo('internal', 'the dispatch failed');
          return { ...r, decision, outcome: 'unknown', action_call_made: 'unknown', error: info };
        }
        if (done.changed !== undefined) detail.changed = done.changed;
        if (done.after_picture !== undefined && deps.keepPicture !== undefined) {
          // The timeline's picture is a convenience: failing to keep it never changes the receipt's outcome.
          const sha = await deps.keepPicture(receiptId, done.after_picture.data).catch(() => undefined);
          if (sha !== undefined) detail.after_sha256 = sha;
        }
        return { ...r, decision, outcome: 'completed', action_call_made: true, path: done.path, screen: detail };
      },
    };
  };
  return supervise(deps, session, r, check, progress, braked, signal, { tool, connection: via.connection });
}
