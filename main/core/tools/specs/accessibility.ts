// The accessibility tier (docs/tools.md#overview): windows and elements, read, found and acted on.
import {
  ActionWaitArgs,
  ElementActArgs,
  ElementFindArgs,
  TOOL_ANSWERS,
  WindowListArgs,
  WindowReadArgs,
  isQuestionHandoffAnswer,
  type Receipt,
  type AccessibilityToolName,
} from '../../../../protocol/index.js';
import { actionWait, elementAct } from '../actTool.js';
import { elementFind, windowList, windowRead } from '../readTools.js';
import { renderFind, renderReceipt, renderWindowList, renderWindowRead } from '../render.js';
import { questionHandoffWait } from '../questionsHandoffs.js';
import { renderQuestionsHandoffs } from '../renderQuestionsHandoffs.js';
import { toolSpec, type ToolSpec } from './toolSpec.js';

/** The five accessibility tools, in listing order. */
export const ACCESSIBILITY_SPECS = {
  window_list: toolSpec({
    name: 'window_list',
    tier: 'accessibility',
    args: WindowListArgs,
    answer: TOOL_ANSWERS.window_list,
    description: 'List visible top-level windows (front to back) with their ids, titles, apps and pids. Start here to pick a window.',
    annotations: { title: 'List windows', readOnlyHint: true, openWorldHint: false },
    run: (ctx, args) => ctx.untilBraked(windowList(ctx.read, ctx.session, args, ctx.signal)),
    render: renderWindowList,
  }),
  window_read: toolSpec({
    name: 'window_read',
    tier: 'accessibility',
    args: WindowReadArgs,
    answer: TOOL_ANSWERS.window_read,
    description:
      'Read one window (default: the foreground window) as a bounded accessibility tree. Each line is one element: role "name" =value #automation_id [actions] {states} ~target. ' +
      'Repeat the same query with since=<observation> to get only what changed. Budgets (max_nodes, max_depth, …) cut the answer and every cut is named. Password values are never shown.',
    annotations: { title: 'Read a window', readOnlyHint: true, openWorldHint: false },
    run: (ctx, args) => ctx.untilBraked(windowRead(ctx.read, ctx.session, args, ctx.signal)),
    render: renderWindowRead,
  }),
  element_find: toolSpec({
    name: 'element_find',
    tier: 'accessibility',
    args: ElementFindArgs,
    answer: TOOL_ANSWERS.element_find,
    description:
      'Find elements of one window by selector (automation_id exact; role, name, name_contains, value_contains case-insensitive; all fields must match; nth picks one). ' +
      'Answers found, not found after searching the whole window, or could not decide (with the reason). Matches carry targets when window is given.',
    annotations: { title: 'Find elements', readOnlyHint: true, openWorldHint: false },
    run: (ctx, args) => ctx.untilBraked(elementFind(ctx.read, ctx.session, args, ctx.signal)),
    render: renderFind,
  }),
  element_act: toolSpec({
    name: 'element_act',
    tier: 'accessibility',
    args: ElementActArgs,
    answer: TOOL_ANSWERS.element_act,
    description:
      'Act on one element through its accessibility pattern: invoke, set_value (text), toggle, expand, collapse, select, scroll_into_view, focus. Give a target from window_read/element_find, or a selector. ' +
      'Changing actions wait for a person to approve; if that takes long the answer is outcome "pending" with a receipt_id for action_wait. The receipt says what was called and how the element looks afterwards; whether your goal was met is yours to judge.',
    annotations: { title: 'Act on an element (supervised)', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    run: (ctx, args) => elementAct(ctx.act, ctx.session, args, ctx.signal, ctx.progress, ctx.braked),
    render: renderReceipt,
    receipt: true,
  }),
  action_wait: toolSpec({
    name: 'action_wait',
    tier: 'accessibility',
    args: ActionWaitArgs,
    answer: TOOL_ANSWERS.action_wait,
    description: 'Keep waiting for a pending element_act (by receipt_id) and get its final receipt.',
    annotations: { title: 'Wait for an approval', readOnlyHint: true, openWorldHint: false },
    // A question's or handoff's receipt id is the person's to answer; every other one is an action's.
    run: (ctx, args): Promise<unknown> =>
      questionHandoffWait(ctx.questionsHandoffs, ctx.session, args, ctx.progress, ctx.braked) ??
      actionWait(ctx.act, ctx.session, args, ctx.progress, ctx.braked),
    // It waits on an action's receipt, or on a question's or handoff's answer, and reads as either.
    render: (answer) => (isQuestionHandoffAnswer(answer) ? renderQuestionsHandoffs(answer) : renderReceipt(answer as Receipt)),
    receipt: true,
  }),
} as const satisfies { [N in AccessibilityToolName]: ToolSpec<N> };
