// The tools as MCP lists them: names, descriptions the model reads, annotations, and the JSON
// Schemas generated from protocol/ (docs/tools.md#overview), all read from the tools' specs
// (main/core/tools/specs/). Which of them an agent sees is toolTiers.ts's business, and so is
// computer_use_activate, which the session answers itself.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Tier } from '../../../protocol/index.js';
import { specsOf } from '../tools/specs/registry.js';
import type { ToolSpec } from '../tools/specs/toolSpec.js';
import { toolJsonSchema } from './jsonSchema.js';

/** One tool as tools/list shows it: arguments (inputSchema) and answers (outputSchema, the shape of every successful answer's structuredContent). */
export function listed(spec: Pick<ToolSpec, 'args' | 'answer' | 'description' | 'annotations' | 'listedInput'> & { name: string }): Tool {
  const input = toolJsonSchema(spec.args, 'input');
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.listedInput?.(input) ?? input,
    outputSchema: toolJsonSchema(spec.answer, 'output'),
    annotations: spec.annotations,
  };
}

/** The tools of one tier as MCP lists them, built once: the schemas never change while the process runs. */
function tierList(tier: Tier | 'always'): () => Tool[] {
  let tools: Tool[] | undefined;
  return () => (tools ??= specsOf(tier).map(listed));
}

/** The accessibility tools as MCP lists them. */
export const toolList: () => Tool[] = tierList('accessibility');

/** The screen tier's tools as MCP lists them (when the person offers the tier). */
export const screenToolList: () => Tool[] = tierList('screen');

/** The tools that talk to the person (docs/tools.md#computer_ask): every agent lists them, idle or not. */
export const questionHandoffToolList: () => Tool[] = tierList('always');

/** The connections tier's tools as MCP lists them (docs/tools.md#connections-tier). */
export const connectionToolList: () => Tool[] = tierList('connections');
