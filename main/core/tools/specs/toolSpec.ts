// One spec per agent tool: everything the listing, the tiers and the runner know of a tool, in one
// place (docs/architecture.md#agent-tools). The registry (registry.ts) holds one for every name the
// protocol declares, so a tool without a spec, or a spec without a tool, does not compile.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type {
  ConnectionRef,
  ConnectionToolName,
  ErrorInfo,
  ExecEnd,
  ScreenToolName,
  QuestionHandoffToolName,
  AccessibilityToolName,
} from '../../../../protocol/index.js';
import type { ActDeps, Progress } from '../actTool.js';
import type { AgentSession } from '../../session/agentSession.js';
import type { ConnectionToolDeps } from '../connectionTools.js';
import type { ReadDeps } from '../readTools.js';
import type { QuestionHandoffDeps } from '../questionsHandoffs.js';

/** Every tool an agent can call through the runner: the accessibility tools, the screen tier, the connections tier, and the tools that talk to the person. */
export type AnyToolName = AccessibilityToolName | ScreenToolName | QuestionHandoffToolName | ConnectionToolName;

/** The tier a tool's name belongs to in protocol/: a spec that says otherwise does not compile. `always`: listed for every agent, idle or not. */
export type TierOf<N extends AnyToolName> = N extends AccessibilityToolName
  ? 'accessibility'
  : N extends ScreenToolName
    ? 'screen'
    : N extends ConnectionToolName
      ? 'connections'
      : 'always';

/** An image answered beside the structured answer (MCP image content). */
export interface ToolImage {
  data: string;
  mimeType: string;
}

/** What a tool's run gets: the call's session and signals, and the dependencies tools share. */
export interface ToolContext {
  /** The agent's session. */
  session: AgentSession;
  /** Where this call acts, fixed when it began. */
  where: ConnectionRef;
  /** Aborted when the agent cancels the call. */
  signal: AbortSignal;
  /** Progress notifications while an action waits, when the agent asked for them. */
  progress: Progress | undefined;
  /** Settles with the brake's error when an emergency stop answers the calls in flight. */
  braked: Promise<ErrorInfo>;
  /** The reading tools' dependencies. */
  read: ReadDeps;
  /** The acting tools' dependencies. */
  act: ActDeps;
  /** The question and handoff tools' dependencies. */
  questionsHandoffs: QuestionHandoffDeps;
  /** The connections tools' dependencies; throws invalid_argument when this supervisor has no connections. */
  connections(): ConnectionToolDeps;
  /** A read's work, answered `braked` the moment an emergency stop answers the calls in flight. */
  untilBraked<T>(work: Promise<T>): Promise<T>;
}

/** A tool's spec as written: `T` is what its run answers, `A` the structured answer rendered (the same unless an image comes beside it). */
export interface ToolSpecInput<N extends AnyToolName, S extends z.ZodType, T, A> {
  /** The tool's name, as agents call it. */
  name: N;
  /** The tier that lists it. */
  tier: TierOf<N>;
  /** Its arguments (protocol/), validated before it runs; listed as its MCP inputSchema. */
  args: S;
  /** Its answer (protocol/): the MCP outputSchema and the shape of its structuredContent. */
  answer: z.ZodType;
  /** What the model reads in tools/list. */
  description: string;
  /** MCP annotations (title, hints). */
  annotations: Tool['annotations'];
  /** Runs the call with the validated arguments. Expected failures throw OverseerError. */
  run(ctx: ToolContext, args: z.output<S>): Promise<T>;
  /** The answer as compact text (`output: "json"` gives the structured answer instead). */
  render(answer: NoInfer<A>): string;
  /** Its answer is a receipt (a supervised action): journaled and shown in the timeline as one. */
  receipt?: true;
  /** It changes the agent's active connection: its journal record names the connection it leads to. */
  switchesConnection?: true;
  /** Refuses raw arguments with a reason of their own before the schema calls a field unknown. */
  refuseBeforeParse?(raw: unknown): void;
  /** Splits a run's answer into the structured answer and an image beside it. */
  image?(ran: T): { answer: A; image: ToolImage };
  /** Fields its journal record adds (bounded summaries of what is not journaled whole). */
  journal?(ran: T): Record<string, unknown>;
  /** How a command it ran ended: decides the outcome and the timeline's line. */
  exec?(ran: T): ExecEnd;
  /** How tools/list shows its input schema when the generated one is not a single object. */
  listedInput?(generated: Tool['inputSchema']): Tool['inputSchema'];
}

/** A tool's spec as the registry holds it: the types that tie its run to its renderer are checked where it is written. */
export interface ToolSpec<N extends AnyToolName = AnyToolName> {
  readonly name: N;
  readonly tier: TierOf<N>;
  readonly args: z.ZodType;
  readonly answer: z.ZodType;
  readonly description: string;
  readonly annotations: Tool['annotations'];
  run(ctx: ToolContext, args: unknown): Promise<unknown>;
  render(answer: unknown): string;
  readonly receipt?: true;
  readonly switchesConnection?: true;
  refuseBeforeParse?(raw: unknown): void;
  image?(ran: unknown): { answer: unknown; image: ToolImage };
  journal?(ran: unknown): Record<string, unknown>;
  exec?(ran: unknown): ExecEnd;
  listedInput?(generated: Tool['inputSchema']): Tool['inputSchema'];
}

/** A spec, checked as written (its run's answer is what its renderer takes) and kept for the registry. */
export function toolSpec<N extends AnyToolName, S extends z.ZodType, T, A = T>(spec: ToolSpecInput<N, S, T, A>): ToolSpec<N> {
  return spec;
}

/** Annotations of a tool that only reads. */
export const readOnly = (title: string): Tool['annotations'] => ({ title, readOnlyHint: true, openWorldHint: false });
