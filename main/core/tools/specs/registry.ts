// Every agent tool's spec, in one table the listing, the tiers and the runner iterate. Its type
// makes a tool name without a spec, or a spec for a name protocol/ does not declare, a compile error.
import type { Tier } from '../../../../protocol/index.js';
import { ACCESSIBILITY_SPECS } from './accessibility.js';
import { CONNECTION_SPECS } from './connections.js';
import { SCREEN_SPECS } from './screen.js';
import { QUESTION_HANDOFF_SPECS } from './questionsHandoffs.js';
import type { AnyToolName, ToolSpec } from './toolSpec.js';

/** Every tool the runner runs, by name; within a tier, in listing order. */
export const TOOL_SPECS = {
  ...ACCESSIBILITY_SPECS,
  ...SCREEN_SPECS,
  ...QUESTION_HANDOFF_SPECS,
  ...CONNECTION_SPECS,
} as const satisfies { [N in AnyToolName]: ToolSpec<N> };

/** Every spec, in the order above (unknown-tool errors list the names in it). */
export const ALL_SPECS: readonly ToolSpec[] = Object.values(TOOL_SPECS);

/** A tool's spec, if the name is one (any string an agent sends is safe to ask about). */
export function specOf(tool: string): ToolSpec | undefined {
  return Object.hasOwn(TOOL_SPECS, tool) ? TOOL_SPECS[tool as AnyToolName] : undefined;
}

/** The specs a tier lists (`always`: every agent, idle or not), in listing order. */
export function specsOf(tier: Tier | 'always'): ToolSpec[] {
  return ALL_SPECS.filter((s) => s.tier === tier);
}
