// The 2026-07-28 era's MCP server (docs/tools.md#protocol-eras), on SDK 2.x: no initialize and no
// session, `server/discover` answered by the SDK, the protocol version and client capabilities in
// each request's `_meta`. It lists and calls the same tools through the same handler as the
// 2025-11-25 session server (toolCall.ts); what a session carried is found through the call's
// context handle (contextHandles.ts).
import { CLIENT_INFO_META_KEY, Server, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import { errorInfo, type ErrorInfo } from '../../../protocol/index.js';
import { agentName } from '../session/agentSession.js';
import { renderError } from '../tools/render.js';
import type { ToolRunner } from '../tools/toolRunner.js';
import { CONTEXT_ARG, CONTEXT_META, MAX_CONTEXT_HANDLE, handleOf, withContextArg, withoutHandle, type Context, type ContextHandles } from './contextHandles.js';
import { INSTRUCTIONS } from './mcpSession.js';
import { CallParams, INVALID_PARAMS, rpcError, runToolCall } from './toolCall.js';
import { freshListing, listedTools } from './toolTiers.js';

/** JSON-RPC's code for a server that cannot take the request now (the agent bound is reached). */
const SERVER_BUSY = -32000;

/** Options of the 2026-07-28 server of one listener. */
export interface ModernServerOptions {
  runner: ToolRunner;
  contexts: ContextHandles;
  /** The credential a request came with: a handle counts only for the one it was minted for. */
  principal: (ctx: ServerContext) => string;
  /** Whether a new context starts with progressive exposure (the person's setting now). */
  progressive: () => boolean;
  version: string;
  onChange: () => void;
  /** Publishes tools/list_changed to the agent's `subscriptions/listen` streams. */
  listChanged: () => void;
}

/** The handle a request carries, if it is one. */
function claimedHandle(raw: unknown): string | undefined | ErrorInfo {
  if (raw === undefined) return undefined;
  if (typeof raw === 'string' && raw.length > 0 && raw.length <= MAX_CONTEXT_HANDLE) return raw;
  return errorInfo(
    'invalid_argument',
    `${CONTEXT_ARG} must be a context handle from an earlier answer (a string of at most ${MAX_CONTEXT_HANDLE} characters)`,
    {
      issues: [{ path: CONTEXT_ARG, message: 'not a context handle' }],
    },
  );
}

/** The name the client gives itself in the request's envelope (the SDK's envelope type names no keys). */
function clientName(ctx: ServerContext): string | undefined {
  const info = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined;
  return typeof info?.name === 'string' ? info.name : undefined;
}

/** An error answer of tools/call, as text or (asked for `output: "json"`) as JSON. */
function errorAnswer(error: ErrorInfo, args: Record<string, unknown> | undefined): CallToolResult {
  const json = args?.['output'] === 'json';
  return { isError: true, content: [{ type: 'text', text: json ? JSON.stringify({ error }) : renderError(error) }] };
}

/** The answer with its context handle: in `_meta` for a host, and said once in text, when minted, for the model. */
function withHandle(result: CallToolResult, context: Context): CallToolResult {
  const note = `context: ${context.handle} (pass it as "${CONTEXT_ARG}" in your next calls: it keeps your targets, receipts and tiers)`;
  return {
    ...result,
    content: context.minted ? [...result.content, { type: 'text', text: note }] : result.content,
    _meta: { ...result._meta, [CONTEXT_META]: context.handle },
  };
}

/** One 2026-07-28 server instance (the SDK makes one per HTTP request, one per stdio connection). */
export function createModernServer(options: ModernServerOptions): Server {
  const { runner, contexts } = options;
  const server = new Server({ name: 'overseer', version: options.version }, { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS });

  server.setRequestHandler('tools/list', (request, ctx) => {
    const claimed = claimedHandle(handleOf(undefined, request.params?._meta));
    if (claimed !== undefined && typeof claimed !== 'string') throw rpcError(INVALID_PARAMS, `invalid_argument: ${claimed.detail}`, claimed);
    const found = claimed === undefined ? undefined : contexts.find(claimed, options.principal(ctx));
    if (found !== undefined && 'code' in found) throw rpcError(INVALID_PARAMS, `${found.code}: ${found.detail}`, found);
    const listing = found?.session ?? freshListing(options.progressive());
    return { tools: listedTools(listing, runner.screenTools).map(withContextArg) as never };
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const parsed = CallParams.safeParse(request.params);
    if (!parsed.success)
      throw rpcError(INVALID_PARAMS, 'invalid_argument: tools/call params are malformed: give name (a string) and arguments (an object)', null);
    const args = parsed.data.arguments;
    const claimed = claimedHandle(handleOf(args, parsed.data._meta));
    if (claimed !== undefined && typeof claimed !== 'string') return errorAnswer(claimed, args);
    let context: Context;
    if (claimed === undefined) {
      const client = agentName(clientName(ctx), 'unknown agent');
      const minted = await contexts.mint(options.principal(ctx), client);
      if ('refused' in minted) throw rpcError(SERVER_BUSY, minted.refused, null);
      context = minted;
    } else {
      const found = contexts.find(claimed, options.principal(ctx));
      if ('code' in found) return errorAnswer(found, args);
      context = found;
    }
    const leave = context.session.enter();
    // The SDK aborts a request's signal when it closes its per-request instance, after the answer;
    // only a cancel or a request closed while the call runs counts (a pending action keeps its card).
    const running = new AbortController();
    const follow = (): void => running.abort(ctx.mcpReq.signal.reason);
    if (ctx.mcpReq.signal.aborted) follow();
    else ctx.mcpReq.signal.addEventListener('abort', follow, { once: true });
    try {
      const result = await runToolCall(
        runner,
        context.session,
        { ...parsed.data, arguments: withoutHandle(args) },
        {
          signal: running.signal,
          notify: (notification) => ctx.mcpReq.notify(notification),
          listChanged: options.listChanged,
          onChange: options.onChange,
        },
      );
      return withHandle(result, context);
    } finally {
      ctx.mcpReq.signal.removeEventListener('abort', follow);
      leave();
    }
  });
  return server;
}
