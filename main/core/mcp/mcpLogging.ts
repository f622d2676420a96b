import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { LoggingLevelSchema, SetLevelRequestSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode } from '../../../protocol/index.js';
import type { ToolResult } from '../tools/toolRunner.js';

/** The logger name of every log message (docs/tools.md#logging). */
export const LOGGER = 'overseer';
/** What is sent before the client sets a level: what the person decided against, and failures. */
export const DEFAULT_LEVEL: LoggingLevel = 'notice';

const SEVERITY = new Map(LoggingLevelSchema.options.map((level, index) => [level, index]));

/** A log message's level and data. */
export interface LogEntry {
  level: LoggingLevel;
  data: { tool: string; outcome: string; code?: ErrorCode; detail?: string; receipt_id?: string };
}

/** The codes that say the person (or the supervisor on the person's behalf) ended a call. */
const PERSON_ENDED: ReadonlySet<ErrorCode> = new Set(['denied', 'expired', 'withdrawn']);

const levelOf = (code: ErrorCode): LoggingLevel =>
  code === 'internal' ? 'error' : code === 'braked' ? 'warning' : PERSON_ENDED.has(code) ? 'notice' : 'debug';

/**
 * What a call's answer says for the agent host's log (docs/tools.md#logging): an element_act
 * receipt by its outcome, a tool error by its code. The answer itself is unchanged; the log is
 * for the host's own record, beside the model's context.
 */
export function logEntry(tool: string, result: ToolResult): LogEntry {
  if (result.isError) return { level: levelOf(result.error.code), data: { tool, outcome: 'error', code: result.error.code, detail: result.error.detail } };
  const receipt = result.structured as {
    receipt_id?: unknown;
    outcome?: unknown;
    refusal?: { code: ErrorCode; detail: string };
    error?: { code: ErrorCode; detail: string };
  };
  if (typeof receipt.receipt_id !== 'string' || typeof receipt.outcome !== 'string') return { level: 'debug', data: { tool, outcome: 'answered' } };
  const base = { tool, outcome: receipt.outcome, receipt_id: receipt.receipt_id };
  if (receipt.outcome === 'refused' && receipt.refusal !== undefined) {
    // A refused action is worth a line even when the agent's own target was at fault.
    const level = levelOf(receipt.refusal.code);
    return { level: level === 'debug' ? 'info' : level, data: { ...base, code: receipt.refusal.code, detail: receipt.refusal.detail } };
  }
  if ((receipt.outcome === 'failed' || receipt.outcome === 'unknown') && receipt.error !== undefined)
    return { level: 'warning', data: { ...base, code: receipt.error.code, detail: receipt.error.detail } };
  return { level: 'info', data: base };
}

/**
 * MCP logging on one agent's server: `logging/setLevel` sets what this session is sent (one server
 * per session, so the level is the session's), and `log` sends an entry at or above it. A message
 * belongs to no request: over HTTP it travels on the session's standalone event stream when the
 * client opened one, and is dropped otherwise, as MCP allows.
 */
export function sessionLogging(server: Server): { log(entry: LogEntry): void } {
  let threshold: LoggingLevel = DEFAULT_LEVEL;
  // Replaces the SDK's own handler, which keeps levels per transport session id in the server.
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    threshold = request.params.level;
    return {};
  });
  return {
    log(entry) {
      if ((SEVERITY.get(entry.level) ?? 0) < (SEVERITY.get(threshold) ?? 0)) return;
      void server.sendLoggingMessage({ level: entry.level, logger: LOGGER, data: entry.data }).catch(() => {});
    },
  };
}
