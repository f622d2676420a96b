import type { ElementRef, HelperResult, Role, Selector } from '../../protocol/index.js';
import type { HelperProcess } from '../../main/core/helperLink/helperProcess.js';

/**
 * What a backend's test lane provides to the shared contract suite: a running helper on a desktop
 * with the fixture application (same names and automation ids on every platform) and a second,
 * independent instance to prove one frozen application never wedges the helper.
 */
export interface ContractSetup {
  /** Backend name the helper must report. */
  backend: string;
  helper: HelperProcess;
  /** Window id of the main fixture window and of a second fixture instance. */
  fixtureWindow: string;
  otherWindow: string;
  /** pid of the main fixture. */
  fixturePid: number;
  /** How long the fixture's Freeze button blocks its main loop (ms). */
  freezeMs: number;
  /** Rows in the fixture's long list. */
  rows: number;
  /** The fixture's automation id for one of the contract's names (as is where the toolkit has string ids; Win32 controls have numbers). */
  id(name: string): string;
  /**
   * Where the backend has no automation ids (lacks `automation_id`): the role and name that find each
   * of the contract's named elements instead, by the same names `id()` takes.
   */
  byName?: Record<string, { role: Role; name: string }>;
  /** The role of a combo box's items (GTK: menu_item; Win32 and UIA: list_item). */
  comboItemRole: Role;
  /** Behaviours the backend has no way to perform, each with the reason the contract reports when it skips them. */
  lacks: Partial<Record<ContractFeature, string>>;
  /** Ends the second fixture instance (for vanished-process answers). */
  killOther(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Behaviours a backend may lack: range values (sliders, spin buttons), expanders and tree rows, focus,
 * scrolling, a window listing that needs the application to answer; and, for a read-only backend
 * (an OSWorld VM's tree), acting at all (`act`: element_act is refused pattern_unsupported),
 * automation ids, and process ids.
 */
export type ContractFeature =
  | 'range_value'
  | 'expand'
  | 'tree'
  | 'focus'
  | 'scroll'
  | 'listing_asks_app'
  | 'act'
  | 'automation_id'
  | 'process_identity'
  /** A per-application circuit breaker: a frozen application is answered application_unresponsive at once after its first timeout. */
  | 'backs_off';

/** The selector of one of the contract's named elements: its automation id, or its role and name where the backend has no ids. */
export function selectorOf(s: ContractSetup, name: string): Selector {
  const instead = s.lacks.automation_id !== undefined ? s.byName?.[name] : undefined;
  return instead ?? { automation_id: s.id(name) };
}

/** True when an element is the contract's named element (by automation id, or by role and name where there are none). */
export function isNamed(
  s: ContractSetup,
  e: { automation_id?: string | undefined; role?: string; name?: string | undefined } | undefined,
  name: string,
): boolean {
  if (e === undefined) return false;
  const instead = s.lacks.automation_id !== undefined ? s.byName?.[name] : undefined;
  return instead !== undefined ? e.role === instead.role && e.name === instead.name : e.automation_id === s.id(name);
}

/** Convenience calls over a setup's helper. */
export function calls(s: ContractSetup) {
  const h = s.helper;
  return {
    read: (p: Partial<Parameters<typeof h.call<'window_read'>>[1]> = {}) => h.call('window_read', { window: s.fixtureWindow, ...p }),
    find: (selector: Selector, p: { window?: string; limit?: number; timeout_ms?: number } = {}) =>
      h.call('element_find', { window: s.fixtureWindow, selector, ...p }),
    act: (selector: Selector, action: HelperResult<'element_act'>['action'], text?: string) =>
      h.call('element_act', { window: s.fixtureWindow, selector, action, ...(text !== undefined ? { text } : {}) }),
    actRef: (element: ElementRef, action: HelperResult<'element_act'>['action'], extra: { text?: string; rebind?: boolean } = {}) =>
      h.call('element_act', { element, action, ...extra }),
    one: async (selector: Selector) => {
      const r = await h.call('element_find', { window: s.fixtureWindow, selector });
      if (r.matches.length !== 1) throw new Error(`expected one match for ${JSON.stringify(selector)}, got ${r.match_count}`);
      return r.matches[0] as NonNullable<(typeof r.matches)[0]>;
    },
  };
}
