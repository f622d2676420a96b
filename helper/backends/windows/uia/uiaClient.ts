import { type ComPtr, ptr, takeVariant, using } from '../com/com.js';
import { IID_IUIAutomation2 } from '../com/guid.js';
import type { VariantValue } from '../com/variant.js';
import { IUIAUTOMATION, IUIAUTOMATION2, IUIAUTOMATION_CACHE_REQUEST, IUIAUTOMATION_ELEMENT, IUIAUTOMATION_ELEMENT_ARRAY, slot } from '../com/vtables.js';
import { PATTERN_AVAILABLE_PROPERTIES, PROPERTY_IDS, TREE_SCOPE } from './uiaIds.js';

const A = (m: (typeof IUIAUTOMATION2)[number]): number => slot(IUIAUTOMATION2, m);
const E = (m: (typeof IUIAUTOMATION_ELEMENT)[number]): number => slot(IUIAUTOMATION_ELEMENT, m);

/** Every property one bulk read caches: what an answer renders and what identity needs. */
export const CACHED_PROPERTIES: readonly number[] = [...Object.values(PROPERTY_IDS), ...Object.values(PATTERN_AVAILABLE_PROPERTIES)];

/**
 * The UI Automation client object and the calls the backend makes on it, each through the one
 * COM layer. Owns the IUIAutomation pointer and the reusable cache request.
 */
export class UiaClient {
  private request: ComPtr | undefined;

  private constructor(
    private readonly automation: ComPtr,
    private readonly automation2: ComPtr | undefined,
  ) {}

  /** Wraps a created IUIAutomation (IUIAutomation2 where the system has it, for timeouts). */
  static wrap(automation: ComPtr): UiaClient {
    return new UiaClient(automation, automation.query(IID_IUIAutomation2, 'IUIAutomation2'));
  }

  /** Caps how long one cross-process call may take (UIA then answers UIA_E_TIMEOUT): the read's deadline. */
  setTransactionTimeout(ms: number): void {
    this.automation2?.call('put_TransactionTimeout', A('put_TransactionTimeout'), ['uint32_t'], [Math.max(100, Math.round(ms))], true);
  }

  /** One CacheRequest for bulk reads: the control view of the whole subtree, every rendered property. */
  private cacheRequest(): ComPtr {
    if (this.request !== undefined) return this.request;
    const request = this.automation.callForInterface('CreateCacheRequest', A('CreateCacheRequest'), [], [], 'IUIAutomationCacheRequest');
    if (request === undefined) throw new Error('CreateCacheRequest returned nothing');
    for (const id of CACHED_PROPERTIES) request.call('AddProperty', slot(IUIAUTOMATION_CACHE_REQUEST, 'AddProperty'), ['int32_t'], [id]);
    request.call('put_TreeScope', slot(IUIAUTOMATION_CACHE_REQUEST, 'put_TreeScope'), ['int32_t'], [TREE_SCOPE.Subtree]);
    const view = this.automation.callForInterface('get_ControlViewCondition', A('get_ControlViewCondition'), [], [], 'IUIAutomationCondition');
    using([view], () => request.call('put_TreeFilter', slot(IUIAUTOMATION_CACHE_REQUEST, 'put_TreeFilter'), ['void *'], [view?.address ?? null]));
    this.request = request;
    return request;
  }

  /** The window's element with its whole control-view subtree cached: one cross-process call. */
  windowBuildCache(hwnd: number): ComPtr | undefined {
    return this.automation.callForInterface(
      'ElementFromHandleBuildCache',
      A('ElementFromHandleBuildCache'),
      ['intptr_t', 'void *'],
      [hwnd, this.cacheRequest().address],
      'IUIAutomationElement',
    );
  }

  /** The window's element without a cache (for finding one element to act on). */
  window(hwnd: number): ComPtr | undefined {
    return this.automation.callForInterface('ElementFromHandle', A('ElementFromHandle'), ['intptr_t'], [hwnd], 'IUIAutomationElement');
  }

  /** The live element with this RuntimeId under `root`, found in one FindFirst; undefined when it is gone. */
  findByRuntimeId(root: ComPtr, runtimeId: readonly number[]): ComPtr | undefined {
    const ints = Buffer.alloc(runtimeId.length * 4);
    runtimeId.forEach((v, i) => ints.writeInt32LE(v, i * 4));
    const out: unknown[] = [null];
    this.automation.call(
      'IntNativeArrayToSafeArray',
      slot(IUIAUTOMATION, 'IntNativeArrayToSafeArray'),
      ['uint8_t *', 'int32_t', '_Out_ void **'],
      [ints, runtimeId.length, out],
    );
    // VARIANT { vt = VT_ARRAY | VT_I4, parray }: passed by reference (x64 passes a 24-byte struct by pointer); cleared after.
    const variant = Buffer.alloc(24);
    variant.writeUInt16LE(0x2003, 0);
    variant.writeBigUInt64LE(ptr(out[0]), 8);
    let condition: ComPtr | undefined;
    try {
      condition = this.automation.callForInterface(
        'CreatePropertyCondition',
        A('CreatePropertyCondition'),
        ['int32_t', 'uint8_t *'],
        [PROPERTY_IDS.RuntimeId, variant],
        'IUIAutomationCondition',
      );
    } finally {
      takeVariant(variant);
    }
    return using([condition], () =>
      root.callForInterface('FindFirst', E('FindFirst'), ['int32_t', 'void *'], [TREE_SCOPE.Subtree, condition?.address ?? null], 'IUIAutomationElement'),
    );
  }

  release(): void {
    this.request?.release();
    this.automation2?.release();
    this.automation.release();
  }
}

/** A cached property of an element; undefined when absent or "not supported". */
export function cached(element: ComPtr, propertyId: number): VariantValue {
  const variant = Buffer.alloc(24);
  const hr = element.call('GetCachedPropertyValue', E('GetCachedPropertyValue'), ['int32_t', '_Out_ uint8_t *'], [propertyId, variant], true);
  if (hr < 0) return undefined;
  const value = takeVariant(variant);
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? undefined : value;
}

/** The cached children of an element (each owned by the caller). */
export function cachedChildren(element: ComPtr): ComPtr[] {
  const array = element.callForInterface('GetCachedChildren', E('GetCachedChildren'), [], [], 'IUIAutomationElementArray');
  if (array === undefined) return [];
  return using([array], () => {
    const length = [0];
    array.call('get_Length', slot(IUIAUTOMATION_ELEMENT_ARRAY, 'get_Length'), ['_Out_ int32_t *'], [length]);
    const children: ComPtr[] = [];
    for (let i = 0; i < (length[0] ?? 0); i++) {
      const child = array.callForInterface('GetElement', slot(IUIAUTOMATION_ELEMENT_ARRAY, 'GetElement'), ['int32_t'], [i], 'IUIAutomationElement');
      if (child !== undefined) children.push(child);
    }
    return children;
  });
}
