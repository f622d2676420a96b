// COM vtable layouts, as ordered method lists from the Windows SDK headers (UIAutomationClient.h,
// Unknwn.h). A method's slot is its position after the inherited methods: IUnknown's three, then
// the interface's own in declaration order. Keep the lists complete: one missing method shifts
// every slot after it (the unit tests pin known slots).

/** IUnknown: every COM interface starts with these three. */
export const IUNKNOWN = ['QueryInterface', 'AddRef', 'Release'] as const;

/** Slots of IUnknown's own methods (0–2). */
export const UNKNOWN_SLOT: Readonly<Record<(typeof IUNKNOWN)[number], number>> = { QueryInterface: 0, AddRef: 1, Release: 2 };

/** IUIAutomation (the CUIAutomation object). */
export const IUIAUTOMATION = [
  'CompareElements',
  'CompareRuntimeIds',
  'GetRootElement',
  'ElementFromHandle',
  'ElementFromPoint',
  'GetFocusedElement',
  'GetRootElementBuildCache',
  'ElementFromHandleBuildCache',
  'ElementFromPointBuildCache',
  'GetFocusedElementBuildCache',
  'CreateTreeWalker',
  'get_ControlViewWalker',
  'get_ContentViewWalker',
  'get_RawViewWalker',
  'get_RawViewCondition',
  'get_ControlViewCondition',
  'get_ContentViewCondition',
  'CreateCacheRequest',
  'CreateTrueCondition',
  'CreateFalseCondition',
  'CreatePropertyCondition',
  'CreatePropertyConditionEx',
  'CreateAndCondition',
  'CreateAndConditionFromArray',
  'CreateAndConditionFromNativeArray',
  'CreateOrCondition',
  'CreateOrConditionFromArray',
  'CreateOrConditionFromNativeArray',
  'CreateNotCondition',
  'AddAutomationEventHandler',
  'RemoveAutomationEventHandler',
  'AddPropertyChangedEventHandlerNativeArray',
  'AddPropertyChangedEventHandler',
  'RemovePropertyChangedEventHandler',
  'AddStructureChangedEventHandler',
  'RemoveStructureChangedEventHandler',
  'AddFocusChangedEventHandler',
  'RemoveFocusChangedEventHandler',
  'RemoveAllEventHandlers',
  'IntNativeArrayToSafeArray',
  'IntSafeArrayToNativeArray',
  'RectToVariant',
  'VariantToRect',
  'SafeArrayToRectNativeArray',
  'CreateProxyFactoryEntry',
  'get_ProxyFactoryMapping',
  'GetPropertyProgrammaticName',
  'GetPatternProgrammaticName',
  'PollForPotentialSupportedPatterns',
  'PollForPotentialSupportedProperties',
  'CheckNotSupported',
  'get_ReservedNotSupportedValue',
  'get_ReservedMixedAttributeValue',
  'ElementFromIAccessible',
  'ElementFromIAccessibleBuildCache',
] as const;

/** IUIAutomation2 (CUIAutomation8): IUIAutomation's methods, then focus and timeout properties. */
export const IUIAUTOMATION2 = [
  ...IUIAUTOMATION,
  'get_AutoSetFocus',
  'put_AutoSetFocus',
  'get_ConnectionTimeout',
  'put_ConnectionTimeout',
  'get_TransactionTimeout',
  'put_TransactionTimeout',
] as const;

const ELEMENT_PROPERTIES = [
  'ProcessId',
  'ControlType',
  'LocalizedControlType',
  'Name',
  'AcceleratorKey',
  'AccessKey',
  'HasKeyboardFocus',
  'IsKeyboardFocusable',
  'IsEnabled',
  'AutomationId',
  'ClassName',
  'HelpText',
  'Culture',
  'IsControlElement',
  'IsContentElement',
  'IsPassword',
  'NativeWindowHandle',
  'ItemType',
  'IsOffscreen',
  'Orientation',
  'FrameworkId',
  'IsRequiredForForm',
  'ItemStatus',
  'BoundingRectangle',
  'LabeledBy',
  'AriaRole',
  'AriaProperties',
  'IsDataValidForForm',
  'ControllerFor',
  'DescribedBy',
  'FlowsTo',
  'ProviderDescription',
] as const;

/** IUIAutomationElement: methods, then every property as get_Current*, then again as get_Cached*. */
export const IUIAUTOMATION_ELEMENT = [
  'SetFocus',
  'GetRuntimeId',
  'FindFirst',
  'FindAll',
  'FindFirstBuildCache',
  'FindAllBuildCache',
  'BuildUpdatedCache',
  'GetCurrentPropertyValue',
  'GetCurrentPropertyValueEx',
  'GetCachedPropertyValue',
  'GetCachedPropertyValueEx',
  'GetCurrentPatternAs',
  'GetCachedPatternAs',
  'GetCurrentPattern',
  'GetCachedPattern',
  'GetCachedParent',
  'GetCachedChildren',
  ...ELEMENT_PROPERTIES.map((p) => `get_Current${p}` as const),
  ...ELEMENT_PROPERTIES.map((p) => `get_Cached${p}` as const),
  'GetClickablePoint',
] as const;

export const IUIAUTOMATION_ELEMENT_ARRAY = ['get_Length', 'GetElement'] as const;
export const IUIAUTOMATION_CACHE_REQUEST = [
  'AddProperty',
  'AddPattern',
  'Clone',
  'get_TreeScope',
  'put_TreeScope',
  'get_TreeFilter',
  'put_TreeFilter',
  'get_AutomationElementMode',
  'put_AutomationElementMode',
] as const;
export const IUIAUTOMATION_INVOKE_PATTERN = ['Invoke'] as const;
export const IUIAUTOMATION_VALUE_PATTERN = ['SetValue', 'get_CurrentValue', 'get_CurrentIsReadOnly', 'get_CachedValue', 'get_CachedIsReadOnly'] as const;
export const IUIAUTOMATION_RANGE_VALUE_PATTERN = [
  'SetValue',
  'get_CurrentValue',
  'get_CurrentIsReadOnly',
  'get_CurrentMaximum',
  'get_CurrentMinimum',
  'get_CurrentLargeChange',
  'get_CurrentSmallChange',
  'get_CachedValue',
  'get_CachedIsReadOnly',
  'get_CachedMaximum',
  'get_CachedMinimum',
  'get_CachedLargeChange',
  'get_CachedSmallChange',
] as const;
export const IUIAUTOMATION_TOGGLE_PATTERN = ['Toggle', 'get_CurrentToggleState', 'get_CachedToggleState'] as const;
export const IUIAUTOMATION_EXPAND_COLLAPSE_PATTERN = ['Expand', 'Collapse', 'get_CurrentExpandCollapseState', 'get_CachedExpandCollapseState'] as const;
export const IUIAUTOMATION_SELECTION_ITEM_PATTERN = [
  'Select',
  'AddToSelection',
  'RemoveFromSelection',
  'get_CurrentIsSelected',
  'get_CurrentSelectionContainer',
  'get_CachedIsSelected',
  'get_CachedSelectionContainer',
] as const;
export const IUIAUTOMATION_SCROLL_ITEM_PATTERN = ['ScrollIntoView'] as const;

/** The slot of a method in an interface that derives directly from IUnknown. */
export function slot<M extends string>(methods: readonly M[], method: M): number {
  const i = methods.indexOf(method);
  if (i < 0) throw new Error(`no method ${method} in this interface`);
  return IUNKNOWN.length + i;
}
