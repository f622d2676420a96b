import { z } from 'zod';

/** One budget: its default, the smallest accepted value and its ceiling (larger values are clamped). */
export interface LimitSpec {
  readonly default: number;
  readonly min: number;
  readonly ceiling: number;
}

/** Reader budgets of window_read (docs/tools.md#budgets-and-cuts). */
export const READ_LIMITS = {
  max_nodes: { default: 400, min: 1, ceiling: 5000 },
  max_depth: { default: 64, min: 1, ceiling: 256 },
  max_children_per_node: { default: 1000, min: 1, ceiling: 5000 },
  max_text_chars: { default: 500, min: 1, ceiling: 20000 },
  max_tokens: { default: 40000, min: 100, ceiling: 200000 },
  timeout_ms: { default: 5000, min: 1, ceiling: 20000 },
} as const satisfies Record<string, LimitSpec>;
export type ReadLimitName = keyof typeof READ_LIMITS;

/** window_list's limit. */
export const LIST_LIMIT = { default: 100, min: 1, ceiling: 500 } as const satisfies LimitSpec;
/** element_find's match limit and wait budget. */
export const FIND_LIMIT = { default: 20, min: 1, ceiling: 200 } as const satisfies LimitSpec;
export const FIND_TIMEOUT = { default: 0, min: 0, ceiling: 20000 } as const satisfies LimitSpec;
/** Longest text accepted in a selector field and in set_value. */
export const MAX_SELECTOR_CHARS = 1000;
export const MAX_SET_VALUE_CHARS = 100_000;
/** Longest tool name read from a call (longer ones are cut when journaled). */
export const MAX_TOOL_NAME = 100;
/** Grace past timeout_ms within which a partial answer must arrive. */
export const TIMEOUT_GRACE_MS = 750;

/** A limit as echoed in every answer: the value applied, its ceiling, and what was asked when it was clamped. */
export const LimitEcho = z.object({
  value: z.number(),
  ceiling: z.number(),
  requested: z.number().optional(),
});
export type LimitEcho = z.infer<typeof LimitEcho>;

/** Applies a limit: default when absent, clamped to the ceiling (with the request echoed). */
export function applyLimit(spec: LimitSpec, requested: number | undefined): LimitEcho {
  if (requested === undefined) return { value: spec.default, ceiling: spec.ceiling };
  if (requested > spec.ceiling) return { value: spec.ceiling, ceiling: spec.ceiling, requested };
  return { value: requested, ceiling: spec.ceiling };
}

/** A zod field for a limit: an integer at least `min`; values above the ceiling are accepted and clamped. */
export function limitField(spec: LimitSpec, describe: string): z.ZodOptional<z.ZodNumber> {
  return z.number().int().min(spec.min).describe(`${describe} Default ${spec.default}, ceiling ${spec.ceiling} (larger values are clamped).`).optional();
}

/**
 * Names of the cuts a bounded answer can report (docs/tools.md#budgets-and-cuts). `visible_part`:
 * a container that manages its descendants (a spreadsheet, a huge list) was read by its visible part only.
 */
export const TRUNCATIONS = ['limit', 'max_nodes', 'max_depth', 'max_children', 'max_text', 'max_tokens', 'timeout', 'provider_error', 'visible_part'] as const;
export const Truncation = z.enum(TRUNCATIONS);
export type Truncation = z.infer<typeof Truncation>;
