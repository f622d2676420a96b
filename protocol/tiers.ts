// Progressive exposure (docs/tools.md#progressive-tools): an idle agent lists only what it needs to
// start; computer_use_activate adds tiers of tools. The tiers are named here; which tool is in which
// is its spec's (main/core/tools/specs/), which the listing and the runner's check both read.
import { z } from 'zod';
import { errorInfo, type ErrorInfo } from './errors.js';

/** The tiers an agent can activate now. */
export const TIERS = ['accessibility', 'screen', 'connections'] as const;
export const Tier = z.enum(TIERS);
export type Tier = z.infer<typeof Tier>;

/** Whether the person offers a tier's tools now: the screen tier only while they turn it on (Settings → Screen); the others always. */
export function tierOffered(tier: Tier, screenOffered: boolean): boolean {
  return tier !== 'screen' || screenOffered;
}

/** The tool that adds tiers to what an agent lists: the MCP session's own (main/core/mcp/toolTiers.ts), not the runner's. */
export const ACTIVATE_TOOL = 'computer_use_activate';

/** computer_use_activate arguments. */
export const ActivateArgs = z.strictObject({
  tiers: z
    .array(Tier)
    .min(1)
    .max(TIERS.length)
    .describe(
      'Tiers to add: "accessibility" (windows and elements: read, find, act), "screen" (screenshots, pointer and keys, when the person offers it), "connections" (other desktops: list, test, activate, remote_exec). Default ["accessibility"].',
    )
    .optional(),
});
export type ActivateArgs = z.infer<typeof ActivateArgs>;

/** Why a tier asked for is not listed (computer_use_activate's `unavailable`). */
export const TierUnavailable = z.object({
  tier: z.string().max(50),
  /** `not_offered`: the person turned the tier off in Settings (it appears once they turn it on). */
  reason: z.enum(['not_offered']),
});

/** computer_use_activate answer: the tiers active now and the tools listed now. */
export const ActivateAnswer = z.object({
  /** The tools listed now, in listing order. */
  activated: z.array(z.string().max(100)),
  /** The tiers this agent has activated. */
  tiers: z.array(Tier),
  /** Tiers asked for that are not listed, and why. */
  unavailable: z.array(TierUnavailable).optional(),
});
export type ActivateAnswer = z.infer<typeof ActivateAnswer>;

/** The refusal of a tool whose tier this agent has not activated: it says exactly what to call. */
export function inactiveTier(tool: string, tier: Tier): ErrorInfo {
  return errorInfo('invalid_argument', `${tool} is in the "${tier}" tier, which you have not activated: call ${ACTIVATE_TOOL} {"tiers": ["${tier}"]} first`, {
    reason: 'tier_inactive',
    tier,
    activate: { tool: ACTIVATE_TOOL, arguments: { tiers: [tier] } },
  });
}
