// Which tools an agent lists (docs/tools.md#progressive-tools): with progressive exposure (the
// default) an idle agent lists only what it needs to start, and computer_use_activate adds tiers.
// Every tool stays callable by name; one of an inactive tier answers how to activate it.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ActivateArgs, TIERS, invalidArgument, type ActivateAnswer, type ErrorInfo, type Tier } from '../../../protocol/index.js';
import type { AgentSession } from '../session/agentSession.js';
import { ACTIVATE_TOOL, activateTool, connectionToolList, screenToolList, questionHandoffToolList, toolList } from './toolList.js';

/**
 * Tools every agent lists, idle or not, whatever tiers it activated: talking to the person
 * (computer_ctrl, computer_ask) belongs here, so an agent can always ask or hand over.
 * computer_use_activate is listed beside them whenever the agent has progressive exposure.
 */
export const ALWAYS_LISTED: readonly (() => Tool[])[] = [questionHandoffToolList];

/** The tools of one tier as MCP lists them. */
function tierTools(tier: Tier): Tool[] {
  return tier === 'accessibility' ? toolList() : tier === 'screen' ? screenToolList() : connectionToolList();
}

/** Whether a tier's tools are listed for this agent now: activated, and (screen) offered by the person. */
export function tierListed(session: AgentSession, tier: Tier, screenOffered: boolean): boolean {
  return session.tiers.has(tier) && (tier !== 'screen' || screenOffered);
}

/** The tools/list of one agent now. */
export function listedTools(session: AgentSession, screenOffered: boolean): Tool[] {
  return [
    ...(session.progressive ? [activateTool()] : []),
    ...ALWAYS_LISTED.flatMap((tools) => tools()),
    ...TIERS.flatMap((tier) => (tierListed(session, tier, screenOffered) ? tierTools(tier) : [])),
  ];
}

/** What an activation did: the answer, and whether the listing changed (then tools/list_changed is sent). */
export type Activation = { ok: true; answer: ActivateAnswer; changed: boolean } | { ok: false; error: ErrorInfo };

/** computer_use_activate: adds the tiers asked for (default accessibility) to what the agent has. */
export function activate(session: AgentSession, raw: unknown, screenOffered: boolean): Activation {
  const parsed = ActivateArgs.safeParse(raw ?? {});
  if (!parsed.success) return { ok: false, error: invalidArgument(parsed.error, ACTIVATE_TOOL) };
  const tiers = parsed.data.tiers ?? ['accessibility'];
  const before = listedTools(session, screenOffered).map((t) => t.name);
  for (const tier of tiers) session.tiers.add(tier);
  const names = listedTools(session, screenOffered).map((t) => t.name);
  const unavailable = tiers.includes('screen') && !screenOffered ? [{ tier: 'screen', reason: 'not_offered' as const }] : [];
  const answer: ActivateAnswer = {
    activated: names,
    tiers: TIERS.filter((t) => session.tiers.has(t)),
    ...(unavailable.length > 0 ? { unavailable } : {}),
  };
  return { ok: true, answer, changed: names.join('\n') !== before.join('\n') };
}

/** An activation as the agent reads it. */
export function renderActivation(a: ActivateAnswer): string {
  const lines = [`tiers: ${a.tiers.join(', ')}`, `listed: ${a.activated.join(', ')}`];
  for (const u of a.unavailable ?? [])
    lines.push(`${u.tier}: not listed: the person does not offer it now (it appears, with tools/list_changed, once they do)`);
  return lines.join('\n');
}
