import { fail, OverseerError, type Action } from '../../../protocol/index.js';
import { DispatchError, type DispatchResult, type Typist } from '../../core/backend.js';
import type { Deadline } from '../../core/deadline.js';
import { setValueRoute } from '../../core/setValue.js';
import type { AtspiTreeSource } from './treeSource.js';
import { typeValue, typesValue } from './typing.js';
import { EXPAND_NAMES, I, INVOKE_NAMES, TOGGLE_NAMES, findAction, type AtspiNode } from './atspiNode.js';
import { AppUnresponsiveError } from './breaker.js';
import { DBusReplyError, DBusTimeoutError, type A11yBus } from './dbus.js';

/** The combo box whose popup menu holds this item, if any (item → menu → combo box). */
export function comboOf(source: AtspiTreeSource, node: AtspiNode): AtspiNode | undefined {
  const menu = node.parent === undefined ? undefined : source.node(node.parent);
  const combo = menu?.parent === undefined ? undefined : source.node(menu.parent);
  return menu?.role === 'menu' && combo?.role === 'combo_box' && combo.interfaces.has(I.selection) ? combo : undefined;
}

/** ATSPI_SCROLL_ANYWHERE: scroll as little as needed to show the object. */
const SCROLL_ANYWHERE = 4;

async function doAction(bus: A11yBus, node: AtspiNode, names: readonly string[], deadline: Deadline): Promise<DispatchResult> {
  const i = findAction(node, names);
  if (i < 0) throw fail('pattern_unsupported', `no action among ${names.join(', ')}`, { supported: node.patterns, actions: node.actions ?? [] });
  const name = node.actions?.[i] ?? String(i);
  const [ok] = await bus.call(node.bus, node.path, I.action, 'DoAction', deadline.remaining(), 'i', [i]);
  return { path: `atspi:Action.DoAction(${name})`, ok: ok === true };
}

/**
 * Dispatches one action through the node's semantic interface. Never synthesizes input and never
 * falls back to coordinates. Throws OverseerError for refusals before any call.
 */
export async function dispatchAtspi(
  bus: A11yBus,
  source: AtspiTreeSource,
  node: AtspiNode,
  action: Action,
  text: string | undefined,
  deadline: Deadline,
  typist?: Typist,
): Promise<DispatchResult> {
  try {
    return await dispatchOnce(bus, source, node, action, text, deadline, typist);
  } catch (error) {
    if (error instanceof OverseerError || error instanceof DispatchError) throw error;
    // Refused before the call left: the application stopped answering (nothing was sent to it).
    if (error instanceof AppUnresponsiveError)
      throw fail('application_unresponsive', `${error.message}; nothing was sent`, {
        app: error.bus,
        since_ms: Math.round(error.sinceMs),
        retry_after_ms: Math.round(error.retryAfterMs),
      });
    if (error instanceof DBusReplyError) throw new DispatchError(`the application answered ${error.errorName}: ${error.message}`, true, 'failed');
    throw new DispatchError(
      error instanceof DBusTimeoutError
        ? `no answer within the time budget; the action may have happened`
        : `the call broke off: ${error instanceof Error ? error.message : String(error)}`,
      'unknown',
      'unknown',
    );
  }
}

async function dispatchOnce(
  bus: A11yBus,
  source: AtspiTreeSource,
  node: AtspiNode,
  action: Action,
  text: string | undefined,
  deadline: Deadline,
  typist: Typist | undefined,
): Promise<DispatchResult> {
  switch (action) {
    case 'invoke':
      return doAction(bus, node, INVOKE_NAMES, deadline);
    case 'toggle':
      return doAction(bus, node, TOGGLE_NAMES, deadline);
    case 'expand':
    case 'collapse': {
      const want = action === 'expand';
      if (node.state?.expanded === want) return { path: 'none', ok: true, noop: true, detail: `already ${want ? 'expanded' : 'collapsed'}` };
      const names = [want ? 'expand' : 'collapse', ...EXPAND_NAMES];
      return doAction(bus, node, names, deadline);
    }
    case 'set_value': {
      const route = setValueRoute(node.patterns, text);
      if (route.via === 'text' && typesValue(source, node)) return typeValue(bus, source, node, route.text, typist, deadline);
      if (route.via === 'text') {
        const [ok] = await bus.call(node.bus, node.path, I.editableText, 'SetTextContents', deadline.remaining(), 's', [route.text]);
        return { path: 'atspi:EditableText.SetTextContents', ok: ok === true };
      }
      await bus.setProperty(node.bus, node.path, I.value, 'CurrentValue', 'd', route.number, deadline.remaining());
      return { path: 'atspi:Value.CurrentValue', ok: true };
    }
    case 'select': {
      const combo = comboOf(source, node);
      if (combo !== undefined) {
        // An item of a combo box's popup: selecting it in the menu only highlights it; the combo selects.
        const menu = source.node(node.parent ?? '');
        const i = menu?.children?.indexOf(node.key) ?? -1;
        if (i >= 0) {
          const [ok] = await bus.call(combo.bus, combo.path, I.selection, 'SelectChild', deadline.remaining(), 'i', [i]);
          return { path: `atspi:Selection.SelectChild(${i}) on the combo box`, ok: ok === true };
        }
      }
      const parent = node.parent === undefined ? undefined : source.node(node.parent);
      if (parent?.interfaces.has(I.selection) === true) {
        const index = parent.children?.indexOf(node.key) ?? -1;
        const i = index >= 0 ? index : node.index;
        if (i >= 0) {
          const [ok] = await bus.call(parent.bus, parent.path, I.selection, 'SelectChild', deadline.remaining(), 'i', [i]);
          if (ok === true) return { path: `atspi:Selection.SelectChild(${i})`, ok: true };
        }
      }
      return doAction(bus, node, ['select', 'click', 'press', 'activate'], deadline);
    }
    case 'scroll_into_view': {
      const [ok] = await bus.call(node.bus, node.path, I.component, 'ScrollTo', deadline.remaining(), 'u', [SCROLL_ANYWHERE]);
      return { path: 'atspi:Component.ScrollTo', ok: ok === true };
    }
    case 'focus': {
      const [ok] = await bus.call(node.bus, node.path, I.component, 'GrabFocus', deadline.remaining());
      return { path: 'atspi:Component.GrabFocus', ok: ok === true };
    }
  }
}
