// Talking to the person (docs/tools.md#computer_ask and docs/tools.md#computer_ctrl): an
// agent asks the supervising person a question, reads what governs it now, or hands the desktop to
// the person until they give it back. Every string here comes from an agent or goes to one: bounded.
import { z } from 'zod';
import { ErrorInfo } from './errors.js';

/** Names of the tools that talk to the person: listed whether or not any tier is active. */
export const QUESTION_HANDOFF_TOOL_NAMES = ['computer_ask', 'computer_ctrl'] as const;
export type QuestionHandoffToolName = (typeof QUESTION_HANDOFF_TOOL_NAMES)[number];

/** Bounds of what an agent may ask or say (longer is invalid_argument, never cut silently). */
export const QUESTION_HANDOFF_LIMITS = {
  /** Longest question. */
  question: 2000,
  /** Most choices offered. */
  choices: 12,
  /** Longest choice. */
  choice: 200,
  /** Longest handoff reason. */
  reason: 1000,
  /** Longest answer or note a person writes. */
  answer: 4000,
  /** How long a question may stay open for the person at most (ms). */
  timeout_ms: 3_600_000,
} as const;

/** The connection every call goes to until connections exist (docs/tools.md#computer_ctrl). */
export const LOCAL_CONNECTION = 'local';

const output = z.enum(['text', 'json']).describe('"text" (default): a compact rendering that is cheap to read; "json": the full structured answer.').optional();

/** A line of text an agent sends: not blank. */
const line = (max: number, describe: string) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim() !== '', { message: 'must not be blank' })
    .describe(describe);

/** computer_ask arguments. */
export const ComputerAskArgs = z
  .strictObject({
    question: line(
      QUESTION_HANDOFF_LIMITS.question,
      `What to ask the supervising person, in plain words (at most ${QUESTION_HANDOFF_LIMITS.question} characters): which file, which account, is this right?`,
    ),
    choices: z
      .array(line(QUESTION_HANDOFF_LIMITS.choice, `One answer the person can pick (at most ${QUESTION_HANDOFF_LIMITS.choice} characters).`))
      .min(1)
      .max(QUESTION_HANDOFF_LIMITS.choices)
      .describe(`Answers to pick from (1–${QUESTION_HANDOFF_LIMITS.choices}); the person may still write their own answer or decline.`)
      .optional(),
    timeout_ms: z
      .number()
      .int()
      .min(1000)
      .max(QUESTION_HANDOFF_LIMITS.timeout_ms)
      .describe('How long the question stays open for the person before it expires (default: the approval expiry, 120 s; at most 1 h).')
      .optional(),
    output,
  })
  .refine((a) => a.choices === undefined || new Set(a.choices).size === a.choices.length, { message: 'choices must differ', path: ['choices'] });
export type ComputerAskArgs = z.infer<typeof ComputerAskArgs>;

/** computer_ctrl arguments: nothing (read what governs this agent), or a handoff. */
export const ComputerCtrlArgs = z.strictObject({
  handoff: z
    .strictObject({
      reason: line(
        QUESTION_HANDOFF_LIMITS.reason,
        `Why the person should take over (a login, a CAPTCHA, a judgement call), at most ${QUESTION_HANDOFF_LIMITS.reason} characters.`,
      ),
    })
    .describe(
      'Hand the desktop to the person: every input on this connection (element_act, screen input) waits until they give control back. Answers {resumed: true, note?}, or "pending" for action_wait.',
    )
    .optional(),
  output,
});
export type ComputerCtrlArgs = z.infer<typeof ComputerCtrlArgs>;

/**
 * computer_ask's answer (and action_wait's for a question): `answered` with the answer (and the
 * index of the choice picked), `declined`, `pending` (keep waiting with action_wait), or `refused`
 * (braked, withdrawn, expired, or denied by the queue's bounds).
 */
export const AskAnswer = z.object({
  receipt_id: z.string(),
  kind: z.literal('question'),
  outcome: z.enum(['answered', 'declined', 'pending', 'refused']),
  /** The person's answer: the choice's text when they picked one. */
  answer: z.string().optional(),
  /** Index (from 0) of the choice the person picked. */
  choice: z.number().int().optional(),
  /** What the person said when declining. */
  note: z.string().optional(),
  refusal: ErrorInfo.optional(),
  /** When the person answered or declined. */
  at: z.string().optional(),
});
export type AskAnswer = z.infer<typeof AskAnswer>;

/** computer_ctrl handoff's answer (and action_wait's for a handoff): control is back, pending, or refused (braked, withdrawn, expired…). */
export const HandoffAnswer = z.object({
  receipt_id: z.string(),
  kind: z.literal('handoff'),
  outcome: z.enum(['resumed', 'pending', 'refused']),
  resumed: z.literal(true).optional(),
  /** What the person said when giving control back. */
  note: z.string().optional(),
  refusal: ErrorInfo.optional(),
  at: z.string().optional(),
});
export type HandoffAnswer = z.infer<typeof HandoffAnswer>;

/** An answer of a question or handoff flow (what action_wait gives for a question or a handoff). */
export type QuestionHandoffAnswer = AskAnswer | HandoffAnswer;

/** Whether an answer is a question or handoff flow's (a question or a handoff), not an action's receipt. */
export function isQuestionHandoffAnswer(answer: unknown): answer is QuestionHandoffAnswer {
  const kind = (answer as { kind?: unknown } | null | undefined)?.kind;
  return kind === 'question' || kind === 'handoff';
}

/** One item of this agent waiting for the person, as computer_ctrl lists it. */
export const CtrlItem = z.object({
  receipt_id: z.string(),
  kind: z.enum(['action', 'question', 'handoff']),
  /** The action (element_act's or a screen input), `ask` or `handoff`. */
  action: z.string(),
  since: z.string(),
  expires_at: z.string().optional(),
});

/** An input of this agent held, not yet run: by the pause (approved) or by a handoff (not yet checked). */
export const CtrlHeld = z.object({
  receipt_id: z.string(),
  action: z.string(),
  since: z.string(),
  by: z.enum(['pause', 'handoff']),
});

/** computer_ctrl's read-only answer: what governs this agent now. */
export const CtrlState = z.object({
  kind: z.literal('state'),
  /** running, paused (nothing new runs), stopped or emergency (every act refused). */
  brake: z.enum(['running', 'paused', 'stopped', 'emergency']),
  person: z.object({
    /** UIs attached now. */
    ui_attached: z.number().int(),
    /** A UI is attached, shown, and a person used it recently. */
    watching: z.boolean(),
    last_active: z.string().optional(),
  }),
  connection: z.object({
    id: z.string(),
    /** Handed to the person: every input on it waits. */
    handed_off: z.boolean(),
  }),
  tiers: z.object({ accessibility: z.boolean(), screen: z.boolean(), screen_offered: z.boolean() }),
  pending: z.array(CtrlItem),
  held: z.array(CtrlHeld),
  /** This agent's allow rules and the deny rules every agent is under. */
  rules: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(['allow', 'deny_app']),
      action: z.string().optional(),
      app: z.string().optional(),
      scope: z.string().optional(),
      element: z.string().optional(),
      pattern: z.string().optional(),
    }),
  ),
  /** This agent's own handoff while it lasts. */
  handoff: z.object({ receipt_id: z.string(), reason: z.string(), since: z.string() }).optional(),
});
export type CtrlState = z.infer<typeof CtrlState>;

/** computer_ctrl's answer: the state, or a handoff's answer. */
export const CtrlAnswer = z.union([CtrlState, HandoffAnswer]);
export type CtrlAnswer = z.infer<typeof CtrlAnswer>;

/** What a card of the queue that is a question carries. */
export const QuestionCardInfo = z.object({
  text: z.string(),
  choices: z.array(z.string()).optional(),
  /** For each choice, the Overseer control its label reads like ("Emergency stop", "Approved"), or null: the card marks it. */
  imitates: z.array(z.string().nullable()).optional(),
});

/** What a card of the queue that is a handoff carries. */
export const HandoffCardInfo = z.object({
  reason: z.string(),
  connection: z.string(),
  /** Inputs (of any agent) held on the connection right now. */
  held_inputs: z.number().int(),
});
