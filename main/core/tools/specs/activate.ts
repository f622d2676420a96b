// computer_use_activate (docs/tools.md#progressive-tools): listed, not run by the runner. It changes
// only what this agent lists, so it is answered by the MCP session (main/core/mcp/toolTiers.ts) and
// not journaled.
import { ActivateAnswer, ActivateArgs, CONNECTION_TOOL_NAMES, SCREEN_TOOL_NAMES, TOOL_NAMES } from '../../../../protocol/index.js';
import type { ToolSpec } from './toolSpec.js';

/** The activation tool of progressive exposure. */
export const ACTIVATE_TOOL = 'computer_use_activate';

/** computer_use_activate as tools/list shows it. */
export const ACTIVATE_SPEC: Pick<ToolSpec, 'args' | 'answer' | 'description' | 'annotations'> & { name: typeof ACTIVATE_TOOL } = {
  name: ACTIVATE_TOOL,
  args: ActivateArgs,
  answer: ActivateAnswer,
  description:
    `Add desktop tools to your tools/list (it is sent again: tools/list_changed). Tier "accessibility" (default): ${TOOL_NAMES.join(', ')}. ` +
    `Tier "screen", when the person offers it: screenshots, pointer and keys (${SCREEN_TOOL_NAMES.length} tools) for what the accessibility tree cannot see. ` +
    `Tier "connections": other desktops (${CONNECTION_TOOL_NAMES.join(', ')}).`,
  annotations: { title: 'Activate desktop tools', readOnlyHint: true, openWorldHint: false },
};
