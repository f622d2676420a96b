import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  IUNKNOWN,
  UNKNOWN_SLOT,
  IUIAUTOMATION,
  IUIAUTOMATION2,
  IUIAUTOMATION_CACHE_REQUEST,
  IUIAUTOMATION_ELEMENT,
  IUIAUTOMATION_ELEMENT_ARRAY,
  IUIAUTOMATION_SELECTION_ITEM_PATTERN,
  IUIAUTOMATION_VALUE_PATTERN,
  slot,
} from './vtables.js';

// Slots from the Windows SDK's UIAutomationClient.h (the C vtable structs), pinned so that an
// edit to a method list that shifts them fails here and not on a user's machine.
describe('COM vtable layouts', () => {
  it('places IUnknown’s own methods at 0–2, and derived methods after them', () => {
    assert.deepEqual(UNKNOWN_SLOT, { QueryInterface: 0, AddRef: 1, Release: 2 });
    assert.equal(slot(IUIAUTOMATION, 'CompareElements'), IUNKNOWN.length);
  });

  it('places IUIAutomation methods where the SDK does', () => {
    assert.equal(slot(IUIAUTOMATION, 'CompareElements'), 3);
    assert.equal(slot(IUIAUTOMATION, 'GetRootElement'), 5);
    assert.equal(slot(IUIAUTOMATION, 'ElementFromHandle'), 6);
    assert.equal(slot(IUIAUTOMATION, 'CreateCacheRequest'), 20);
    assert.equal(slot(IUIAUTOMATION, 'CreateTrueCondition'), 21);
    assert.equal(slot(IUIAUTOMATION, 'CreatePropertyCondition'), 23);
    assert.equal(slot(IUIAUTOMATION, 'ElementFromIAccessibleBuildCache'), 57);
    assert.equal(IUIAUTOMATION.length + 3, 58);
    assert.equal(slot(IUIAUTOMATION2, 'put_ConnectionTimeout'), 61);
    assert.equal(slot(IUIAUTOMATION2, 'put_TransactionTimeout'), 63);
    assert.equal(slot(IUIAUTOMATION, 'IntNativeArrayToSafeArray'), 42);
    assert.equal(slot(IUIAUTOMATION, 'get_ControlViewCondition'), 18);
  });

  it('places IUIAutomationElement methods and properties where the SDK does', () => {
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'SetFocus'), 3);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'FindAllBuildCache'), 8);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'BuildUpdatedCache'), 9);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'GetCachedPropertyValue'), 12);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'GetCurrentPattern'), 16);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'GetCachedChildren'), 19);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'get_CurrentProcessId'), 20);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'get_CurrentName'), 23);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'get_CurrentIsPassword'), 35);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'get_CurrentNativeWindowHandle'), 36);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'get_CurrentBoundingRectangle'), 43);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'get_CachedProcessId'), 52);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'get_CachedBoundingRectangle'), 75);
    assert.equal(slot(IUIAUTOMATION_ELEMENT, 'GetClickablePoint'), 84);
  });

  it('places the small interfaces where the SDK does', () => {
    assert.equal(slot(IUIAUTOMATION_ELEMENT_ARRAY, 'GetElement'), 4);
    assert.equal(slot(IUIAUTOMATION_CACHE_REQUEST, 'put_TreeScope'), 7);
    assert.equal(slot(IUIAUTOMATION_CACHE_REQUEST, 'put_AutomationElementMode'), 11);
    assert.equal(slot(IUIAUTOMATION_VALUE_PATTERN, 'get_CurrentValue'), 4);
    assert.equal(slot(IUIAUTOMATION_SELECTION_ITEM_PATTERN, 'get_CurrentIsSelected'), 6);
  });

  it('refuses a method the interface does not have', () => {
    assert.throws(() => slot(IUIAUTOMATION as readonly string[], 'NoSuchMethod'), /no method NoSuchMethod/);
  });
});
