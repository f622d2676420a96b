import { fail, type Action, type Pattern } from '../../../../protocol/index.js';
import { DispatchError, type DispatchResult } from '../../../core/backend.js';
import { setValueRoute } from '../../../core/setValue.js';
import { ComError, dispatchFailure, readFailure } from '../com/hresult.js';
import { allocBstr, freeBstr, using, type ComPtr } from '../com/com.js';
import { PATTERN_IIDS, guid as guidBytes } from '../com/guid.js';
import {
  IUIAUTOMATION_ELEMENT,
  IUIAUTOMATION_EXPAND_COLLAPSE_PATTERN,
  IUIAUTOMATION_INVOKE_PATTERN,
  IUIAUTOMATION_RANGE_VALUE_PATTERN,
  IUIAUTOMATION_SCROLL_ITEM_PATTERN,
  IUIAUTOMATION_SELECTION_ITEM_PATTERN,
  IUIAUTOMATION_TOGGLE_PATTERN,
  IUIAUTOMATION_VALUE_PATTERN,
  slot,
} from '../com/vtables.js';
import { PATTERN_IDS } from './uiaIds.js';

/** How each action is called: the pattern, its method, the method's slot and parameters. */
interface Call {
  pattern: Exclude<Pattern, 'focus' | 'selection' | 'text'>;
  interfaceName: string;
  method: string;
  slot: number;
}

/** Chooses the pattern call for an action (value before range value for text; range value for numbers). */
export function callFor(action: Action, patterns: readonly Pattern[], text: string | undefined): Call | 'focus' | undefined {
  switch (action) {
    case 'invoke':
      return { pattern: 'invoke', interfaceName: 'InvokePattern', method: 'Invoke', slot: slot(IUIAUTOMATION_INVOKE_PATTERN, 'Invoke') };
    case 'set_value':
      if (setValueRoute(patterns, text).via === 'number')
        return { pattern: 'range_value', interfaceName: 'RangeValuePattern', method: 'SetValue', slot: slot(IUIAUTOMATION_RANGE_VALUE_PATTERN, 'SetValue') };
      return { pattern: 'value', interfaceName: 'ValuePattern', method: 'SetValue', slot: slot(IUIAUTOMATION_VALUE_PATTERN, 'SetValue') };
    case 'toggle':
      return { pattern: 'toggle', interfaceName: 'TogglePattern', method: 'Toggle', slot: slot(IUIAUTOMATION_TOGGLE_PATTERN, 'Toggle') };
    case 'expand':
      return {
        pattern: 'expand_collapse',
        interfaceName: 'ExpandCollapsePattern',
        method: 'Expand',
        slot: slot(IUIAUTOMATION_EXPAND_COLLAPSE_PATTERN, 'Expand'),
      };
    case 'collapse':
      return {
        pattern: 'expand_collapse',
        interfaceName: 'ExpandCollapsePattern',
        method: 'Collapse',
        slot: slot(IUIAUTOMATION_EXPAND_COLLAPSE_PATTERN, 'Collapse'),
      };
    case 'select':
      return { pattern: 'selection_item', interfaceName: 'SelectionItemPattern', method: 'Select', slot: slot(IUIAUTOMATION_SELECTION_ITEM_PATTERN, 'Select') };
    case 'scroll_into_view':
      return {
        pattern: 'scroll_item',
        interfaceName: 'ScrollItemPattern',
        method: 'ScrollIntoView',
        slot: slot(IUIAUTOMATION_SCROLL_ITEM_PATTERN, 'ScrollIntoView'),
      };
    case 'focus':
      return 'focus';
  }
}

/** Runs a pattern method: a failure here may follow an effect, so it maps to failed or unknown, never a refusal. */
function runMethod(target: ComPtr, path: string, methodSlot: number, params: readonly string[], args: readonly unknown[]): void {
  try {
    target.call(path, methodSlot, params, args);
  } catch (error) {
    if (!(error instanceof ComError)) throw new DispatchError(`${path}: ${error instanceof Error ? error.message : String(error)}`, 'unknown', 'unknown');
    const { outcome, callMade } = dispatchFailure(error.hr);
    throw new DispatchError(`${path} failed: ${error.message}`, callMade, outcome);
  }
}

/**
 * Dispatches an action on a live element through its semantic pattern (never input). Getting the
 * pattern happens before anything is sent, so its failures are refusals with error codes (docs/tools.md#errors).
 */
export function dispatchUia(element: ComPtr, action: Action, patterns: readonly Pattern[], text: string | undefined): DispatchResult {
  const call = callFor(action, patterns, text);
  if (call === undefined) throw fail('pattern_unsupported', `no pattern carries ${action}`, { supported: patterns });
  if (call === 'focus') {
    runMethod(element, 'uia:IUIAutomationElement.SetFocus', slot(IUIAUTOMATION_ELEMENT, 'SetFocus'), [], []);
    return { path: 'uia:IUIAutomationElement.SetFocus', ok: true };
  }
  const path = `uia:${call.interfaceName}.${call.method}`;
  let pattern: ComPtr | undefined;
  try {
    pattern = element.callForInterface(
      'GetCurrentPatternAs',
      slot(IUIAUTOMATION_ELEMENT, 'GetCurrentPatternAs'),
      ['int32_t', 'const uint8_t *'],
      [PATTERN_IDS[call.pattern], guidBytes(PATTERN_IIDS[call.pattern])],
      `IUIAutomation${call.interfaceName}`,
    );
  } catch (error) {
    if (error instanceof ComError) throw fail(readFailure(error.hr), `${path}: the pattern could not be obtained (${error.message})`, { supported: patterns });
    throw error;
  }
  if (pattern === undefined) throw fail('pattern_unsupported', `the element does not provide ${call.interfaceName} any more`, { supported: patterns });
  return using([pattern], () => {
    const route = action === 'set_value' ? setValueRoute(patterns, text) : undefined;
    if (route?.via === 'text') {
      const bstr = allocBstr(route.text);
      try {
        runMethod(pattern, path, call.slot, ['void *'], [bstr]);
      } finally {
        freeBstr(bstr);
      }
    } else if (route?.via === 'number') runMethod(pattern, path, call.slot, ['double'], [route.number]);
    else runMethod(pattern, path, call.slot, [], []);
    return { path, ok: true };
  });
}
