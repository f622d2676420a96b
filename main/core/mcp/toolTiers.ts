// Which tools an agent lists (docs/tools.md#progressive-tools): with progressive exposure (the
// default) an idle agent lists only what it needs to start, and computer_use_activate adds tiers.
// Every tool stays callable by name; one of an inactive tier answers how to activate it.
//
// computer_use_activate is defined here, whole, and not in the tools' registry: it is listed by the
// session's progressive flag rather than by a tier, what it changes is this session's tools/list
// (the session then sends tools/list_changed), and neither the runner's gates (tier, emergency
// stop) nor its journal apply to it: it changes nothing outside the session
// (docs/supervision.md#receipts-journal).
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  ACTIVATE_TOOL,
  ActivateAnswer,
  ActivateArgs,
  CONNECTION_TOOL_NAMES,
  SCREEN_TOOL_NAMES,
  TIERS,
  ACCESSIBILITY_TOOL_NAMES,
  invalidArgument,
  tierOffered,
  unreachable,
  type ErrorInfo,
  type Tier,
} from '../../../protocol/index.js';
import type { AgentSession } from '../session/agentSession.js';
import { renderError } from '../tools/render.js';
import { connectionToolList, listed, questionHandoffToolList, screenToolList, toolList } from './toolList.js';

/** computer_use_activate as tools/list shows it. */
const ACTIVATE_SPEC = {
  name: ACTIVATE_TOOL,
  args: ActivateArgs,
  answer: ActivateAnswer,
  description:
    `Add desktop tools to your tools/list (it is sent again: tools/list_changed). Tier "accessibility" (default): ${ACCESSIBILITY_TOOL_NAMES.join(', ')}. ` +
    `Tier "screen", when the person offers it: screenshots, pointer and keys (${SCREEN_TOOL_NAMES.length} tools) for what the accessibility tree cannot see. ` +
    `Tier "connections": other desktops (${CONNECTION_TOOL_NAMES.join(', ')}).`,
  annotations: { title: 'Activate desktop tools', readOnlyHint: true, openWorldHint: false },
};

/** computer_use_activate as MCP lists it, built once. */
export const activateTool: () => Tool = (() => {
  let tool: Tool | undefined;
  return () => (tool ??= listed(ACTIVATE_SPEC));
})();

/**
 * Tools every agent lists, idle or not, whatever tiers it activated: talking to the person
 * (computer_ctrl, computer_ask) belongs here, so an agent can always ask or hand over.
 * computer_use_activate is listed beside them whenever the agent has progressive exposure.
 */
export const ALWAYS_LISTED: readonly (() => Tool[])[] = [questionHandoffToolList];

/** The tools of one tier as MCP lists them: a new tier is a compile error here until it lists its own. */
function tierTools(tier: Tier): Tool[] {
  switch (tier) {
    case 'accessibility':
      return toolList();
    case 'screen':
      return screenToolList();
    case 'connections':
      return connectionToolList();
    default:
      return unreachable(tier);
  }
}

/** What an agent's tools/list depends on: whether it has progressive exposure, and the tiers it activated. */
export type Listing = Pick<AgentSession, 'progressive' | 'tiers'>;

/** What a new agent lists before it activates anything (progressive exposure is the person's setting). */
export function freshListing(progressive: boolean): Listing {
  return { progressive, tiers: new Set(progressive ? [] : TIERS) };
}

/** Whether a tier's tools are listed for this agent now: activated, and (screen) offered by the person. */
export function tierListed(session: Listing, tier: Tier, screenOffered: boolean): boolean {
  return session.tiers.has(tier) && tierOffered(tier, screenOffered);
}

/** The tools/list of one agent now. */
export function listedTools(session: Listing, screenOffered: boolean): Tool[] {
  return [
    ...(session.progressive ? [activateTool()] : []),
    ...ALWAYS_LISTED.flatMap((tools) => tools()),
    ...TIERS.flatMap((tier) => (tierListed(session, tier, screenOffered) ? tierTools(tier) : [])),
  ];
}

/** What an activation did: the answer, and whether the listing changed (then tools/list_changed is sent). */
type Activation = { ok: true; answer: ActivateAnswer; changed: boolean } | { ok: false; error: ErrorInfo };

/** computer_use_activate: adds the tiers asked for (default accessibility) to what the agent has. */
function activate(session: AgentSession, raw: unknown, screenOffered: boolean): Activation {
  const parsed = ActivateArgs.safeParse(raw ?? {});
  if (!parsed.success) return { ok: false, error: invalidArgument(parsed.error, ACTIVATE_TOOL) };
  const tiers = parsed.data.tiers ?? ['accessibility'];
  const before = listedTools(session, screenOffered).map((t) => t.name);
  for (const tier of tiers) session.tiers.add(tier);
  const names = listedTools(session, screenOffered).map((t) => t.name);
  const unavailable = tiers.filter((tier) => !tierOffered(tier, screenOffered)).map((tier) => ({ tier, reason: 'not_offered' as const }));
  const answer: ActivateAnswer = {
    activated: names,
    tiers: TIERS.filter((t) => session.tiers.has(t)),
    ...(unavailable.length > 0 ? { unavailable } : {}),
  };
  return { ok: true, answer, changed: names.join('\n') !== before.join('\n') };
}

/** An activation as the agent reads it. */
function renderActivation(a: ActivateAnswer): string {
  const lines = [`tiers: ${a.tiers.join(', ')}`, `listed: ${a.activated.join(', ')}`];
  for (const u of a.unavailable ?? [])
    lines.push(`${u.tier}: not listed: the person does not offer it now (it appears, with tools/list_changed, once they do)`);
  return lines.join('\n');
}

/** A call the session answered itself: its MCP result, whether it succeeded, and whether this session's tools/list changed. */
export interface SessionAnswer {
  result: CallToolResult;
  ok: boolean;
  listChanged: boolean;
}

/** Answers a call that changes only what this session lists (computer_use_activate); undefined for every other tool, which the runner runs. */
export function answerInSession(
  session: AgentSession,
  tool: string,
  args: Record<string, unknown> | undefined,
  screenOffered: boolean,
): SessionAnswer | undefined {
  if (tool !== ACTIVATE_TOOL) return undefined;
  const done = activate(session, args, screenOffered);
  if (!done.ok) {
    const json = args?.['output'] === 'json';
    return {
      ok: false,
      listChanged: false,
      result: { isError: true, content: [{ type: 'text', text: json ? JSON.stringify({ error: done.error }) : renderError(done.error) }] },
    };
  }
  return { ok: true, listChanged: done.changed, result: { content: [{ type: 'text', text: renderActivation(done.answer) }], structuredContent: done.answer } };
}
