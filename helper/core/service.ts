import {
  ACTIONS,
  FIND_LIMIT,
  FIND_TIMEOUT,
  HELPER_METHODS,
  HELPER_PROTOCOL_VERSION,
  LIST_LIMIT,
  READ_LIMITS,
  SCREEN_METHODS,
  applyLimit,
  fail,
  type Exclusions,
  type HelperMethod,
  type HelperResult,
} from '../../protocol/index.js';
import { parseParams } from '../../rpc/rpcPeer.js';
import { act } from './act.js';
import type { Backend } from './backend.js';
import { Deadline } from './deadline.js';
import { findElements } from './find.js';
import { readWindow } from './read.js';
import { ancestorPath, digestOf, toElement } from './shape.js';
import { splitScope, withScope } from './scope.js';
import { openSource } from './source.js';

type ScreenMethod = keyof typeof SCREEN_METHODS;
function isScreenMethod(method: HelperMethod): method is ScreenMethod {
  return Object.hasOwn(SCREEN_METHODS, method);
}

/** Version of the helper, reported by hello. */
export const HELPER_VERSION = '0.1.0';
/** Validate answers before sending them (OVERSEER_HELPER_SELF_CHECK=1). */
const SELF_CHECK = process.env['OVERSEER_HELPER_SELF_CHECK'] === '1';
/** Budget of a window listing. */
const LIST_BUDGET_MS = 3000;

/**
 * The helper's methods over one backend: validates every request against the protocol table,
 * runs it, and validates the answer before it leaves.
 */
/** The screen tier's methods, answered beside the accessibility ones (helper/screen wires them in). */
export interface ScreenMethods {
  handles(method: string): method is ScreenMethod;
  handle(method: ScreenMethod, params: unknown, signal?: AbortSignal): Promise<unknown>;
  /** The exclusions the supervisor configured (hello, configure), which the screen tier masks and refuses too. */
  setExclusions(exclusions: Exclusions): void;
}

/** The kind of desktop session the helper's environment names. */
function sessionType(env: NodeJS.ProcessEnv, platform: string): string {
  if (platform === 'win32') return 'windows';
  if (env['DISPLAY'] !== undefined && env['DISPLAY'] !== '') return 'x11';
  if (env['WAYLAND_DISPLAY'] !== undefined && env['WAYLAND_DISPLAY'] !== '') return 'wayland';
  return 'none';
}

export class HelperService {
  constructor(
    private readonly backend: Backend,
    private readonly log: (line: string) => void,
    private readonly screen?: ScreenMethods,
  ) {}

  private setExclusions(exclusions: Exclusions): void {
    this.backend.setExclusions(exclusions);
    this.screen?.setExclusions(exclusions);
  }

  /** Handles one JSON-RPC request (the RpcPeer handler). */
  async handle(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    if (!Object.hasOwn(HELPER_METHODS, method))
      throw fail('invalid_argument', `unknown method "${method.slice(0, 100)}"`, { methods: Object.keys(HELPER_METHODS) });
    const m = method as HelperMethod;
    const { params: own, scope } = splitScope(params);
    const result = await withScope(scope, () => this.run(m, own, signal));
    // The receiving side validates every answer; checking our own as well is for development runs.
    if (!SELF_CHECK) return result;
    const checked = HELPER_METHODS[m].result.safeParse(result);
    if (!checked.success) {
      this.log(`[helper] answer of ${m} broke its schema: ${checked.error.message.slice(0, 2000)}`);
      throw fail('internal', `the answer of ${m} did not match its schema`);
    }
    return checked.data;
  }

  private async run(method: HelperMethod, params: unknown, signal: AbortSignal): Promise<HelperResult<HelperMethod>> {
    if (isScreenMethod(method)) {
      if (this.screen === undefined) throw fail('capture_unavailable', 'this helper has no screen tier', { reason: 'not_built' });
      return (await this.screen.handle(method, params, signal)) as HelperResult<HelperMethod>;
    }
    switch (method) {
      case 'hello': {
        const p = parseParams(HELPER_METHODS.hello.params, params, 'hello');
        if (p.exclude !== undefined) this.setExclusions(p.exclude);
        return {
          backend: this.backend.name,
          version: HELPER_VERSION,
          protocol_version: HELPER_PROTOCOL_VERSION,
          pid: process.pid,
          capabilities: [...this.backend.capabilities],
          actions: [...ACTIONS],
          limits: { ...READ_LIMITS, list_limit: LIST_LIMIT, find_limit: FIND_LIMIT, find_timeout_ms: FIND_TIMEOUT },
          ...(this.backend.fallbackReason !== undefined ? { fallback_reason: this.backend.fallbackReason } : {}),
          platform: process.platform,
          session_type: sessionType(process.env, process.platform),
        };
      }
      case 'configure': {
        const p = parseParams(HELPER_METHODS.configure.params, params, 'configure');
        this.setExclusions(p.exclude);
        return { ok: true };
      }
      case 'window_list': {
        const p = parseParams(HELPER_METHODS.window_list.params, params, 'window_list');
        const limit = applyLimit(LIST_LIMIT, p.limit);
        const listed = await this.backend.listWindows(new Deadline(this.backend.listBudgetMs ?? LIST_BUDGET_MS, signal));
        const truncated = [...listed.truncated];
        const notes = [...listed.notes];
        if (listed.windows.length > limit.value) {
          truncated.push('limit');
          notes.push(`limit: ${listed.windows.length} windows, ${limit.value} listed`);
        }
        if (limit.requested !== undefined) notes.push(`limit: ${limit.requested} was clamped to its ceiling ${limit.ceiling}`);
        return { windows: listed.windows.slice(0, limit.value), limit, total_known: truncated.length === 0, truncated_by: truncated, notes };
      }
      case 'window_read':
        return readWindow(this.backend, parseParams(HELPER_METHODS.window_read.params, params, 'window_read'), signal);
      case 'element_find':
        return findElements(this.backend, parseParams(HELPER_METHODS.element_find.params, params, 'element_find'), signal);
      case 'element_resolve': {
        const p = parseParams(HELPER_METHODS.element_resolve.params, params, 'element_resolve');
        const deadline = new Deadline(READ_LIMITS.timeout_ms.default, signal);
        const ref = p.element;
        await this.backend.checkProcess(ref.process, deadline);
        const window = await this.backend.resolveWindow(ref.window, deadline);
        const source = await openSource(this.backend, window, deadline);
        try {
          const node = source.node(ref.key);
          if (node === undefined) throw fail('stale_element', 'the element observed is gone', { key: ref.key });
          await source.details([node.key], deadline);
          if (digestOf(node, ancestorPath(source, node.key)) !== ref.digest)
            throw fail('stale_element', 'the element changed since it was observed', { key: ref.key });
          return { window: window.info, element: toElement(source, node, { maxTextChars: READ_LIMITS.max_text_chars.default, identity: true }) };
        } finally {
          source.finish();
        }
      }
      case 'element_act':
        return act(this.backend, parseParams(HELPER_METHODS.element_act.params, params, 'element_act'), signal);
    }
  }
}
