// The tools that talk to the person (docs/tools.md#computer_ask): every agent lists them, idle or
// not, so an agent can always ask or hand over.
import { AskAnswer, ComputerAskArgs, ComputerCtrlArgs, CtrlAnswer, isQuestionHandoffAnswer, type QuestionHandoffToolName } from '../../../../protocol/index.js';
import { renderCtrlState, renderQuestionsHandoffs } from '../renderQuestionsHandoffs.js';
import { computerAsk, computerCtrl } from '../questionsHandoffs.js';
import { toolSpec, type ToolSpec } from './toolSpec.js';

/** The question and handoff tools, in listing order. */
export const QUESTION_HANDOFF_SPECS = {
  computer_ask: toolSpec({
    name: 'computer_ask',
    tier: 'always',
    args: ComputerAskArgs,
    answer: AskAnswer,
    description:
      'Ask the supervising person a question (which file, which account, is this right?), with choices or for a written answer. A person answers, picks a choice or declines; rules never answer. ' +
      'Answers {outcome: "answered", answer, choice?} or "declined"; if nobody answers within the approval wait, "pending" with a receipt_id for action_wait.',
    annotations: { title: 'Ask the person', readOnlyHint: true, openWorldHint: false },
    run: (ctx, args) => computerAsk(ctx.questionsHandoffs, ctx.session, args, ctx.progress, ctx.braked),
    render: renderQuestionsHandoffs,
  }),
  computer_ctrl: toolSpec({
    name: 'computer_ctrl',
    tier: 'always',
    args: ComputerCtrlArgs,
    answer: CtrlAnswer,
    description:
      'Without arguments: what governs you now (brakes, whether a person is watching, your pending and held items, your connection and tiers, the rules that name you). ' +
      'With handoff {reason}: hand the desktop to the person (a login, a CAPTCHA, a judgement call); every input on this connection waits until they give control back, then this answers {resumed: true, note?} (or "pending" for action_wait).',
    annotations: { title: 'Control state and handoff', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (ctx, args) => computerCtrl(ctx.questionsHandoffs, ctx.session, args, ctx.progress, ctx.braked),
    // With a handoff it answers the handoff's outcome; without arguments, the state.
    render: (answer) => (isQuestionHandoffAnswer(answer) ? renderQuestionsHandoffs(answer) : renderCtrlState(answer)),
  }),
} as const satisfies { [N in QuestionHandoffToolName]: ToolSpec<N> };
