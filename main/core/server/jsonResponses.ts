import { AsyncLocalStorage } from 'node:async_hooks';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/**
 * Per-request plain JSON answers on the SDK's Streamable HTTP transport.
 *
 * The SDK (1.32) chooses between an SSE stream and one plain JSON body per transport, with
 * `enableJsonResponse`, and in JSON mode it drops every notification that belongs to a request,
 * so a call's progress would be lost. A JSON body costs far less than SSE framing on both sides
 * of a large read, and a call that asks for no progress (no `_meta.progressToken`) can receive
 * nothing but its one answer. So the choice is made per request: the SDK reads its flag when a POST
 * opens its response (there the flag says what this request asked for, kept in an
 * AsyncLocalStorage around its handling) and while it sends (there the flag says what the
 * message's own response stream is, whatever request is being handled). Sends never depend on
 * which request runs, so concurrent calls of both kinds in one session cannot mix.
 *
 * The SDK never forgets a JSON response's stream once answered (1.32 keeps one entry per call for
 * the life of the session), so it is released here once its last answer is out.
 *
 * This reads the SDK's private fields; when they are not there (a changed SDK), every answer
 * stays SSE, which carries everything, and the supervisor logs it once. The tests of
 * mcpHttp.desktop.test.ts prove both kinds of answer against the real SDK client.
 */

/** Whether the request being handled may be answered as one plain JSON body. */
const plainJson = new AsyncLocalStorage<boolean>();

/** The SDK's fields read here (WebStandardStreamableHTTPServerTransport, 1.32). */
interface SdkInternals {
  _enableJsonResponse: boolean;
  _requestToStreamMapping: Map<unknown, string>;
  _streamMapping: Map<string, { resolveJson?: unknown; cleanup?: () => void }>;
  send(message: unknown, options?: { relatedRequestId?: unknown }): Promise<void>;
}

let warned = false;

/** True for a POST body of JSON-RPC requests none of which asks for progress. */
export function asksNoProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  return messages.every((m) => {
    if (m === null || typeof m !== 'object') return true;
    const meta = (m as { params?: { _meta?: unknown } }).params?._meta;
    return meta === null || typeof meta !== 'object' || (meta as { progressToken?: unknown }).progressToken === undefined;
  });
}

/** Lets `transport` answer plain JSON to the requests run through `withAnswerMode`; false when this SDK cannot. */
export function allowPlainJson(transport: StreamableHTTPServerTransport, log: (line: string) => void): boolean {
  const web = (transport as unknown as { _webStandardTransport?: Partial<SdkInternals> })._webStandardTransport;
  if (
    web === undefined ||
    typeof web._enableJsonResponse !== 'boolean' ||
    !(web._requestToStreamMapping instanceof Map) ||
    !(web._streamMapping instanceof Map) ||
    typeof web.send !== 'function'
  ) {
    if (!warned) log('[mcp] this MCP SDK has no per-request JSON answers as expected; every answer is SSE');
    warned = true;
    return false;
  }
  const sdk = web as SdkInternals;
  // Set only while a send runs: the SDK reads its flag before its first await there (no event store).
  let sending: boolean | undefined;
  const send = sdk.send.bind(sdk);
  sdk.send = (message, options) => {
    const m = message as { id?: unknown; result?: unknown; error?: unknown };
    const requestId = 'result' in m || 'error' in m ? m.id : options?.relatedRequestId;
    const streamId = requestId === undefined ? undefined : sdk._requestToStreamMapping.get(requestId);
    const stream = streamId === undefined ? undefined : sdk._streamMapping.get(streamId);
    sending = stream?.resolveJson !== undefined;
    try {
      // Without an event store the SDK answers before its first await: done once send returns.
      const sent = send(message, options);
      if (sending && ![...sdk._requestToStreamMapping.values()].includes(streamId as string)) stream?.cleanup?.();
      return sent;
    } finally {
      sending = undefined;
    }
  };
  Object.defineProperty(sdk, '_enableJsonResponse', {
    configurable: true,
    get: () => sending ?? plainJson.getStore() === true,
    set: () => {},
  });
  return true;
}

/** Handles one HTTP request, answered plain JSON when `json` (see allowPlainJson). */
export function withAnswerMode<T>(json: boolean, handle: () => T): T {
  return plainJson.run(json, handle);
}
