import { ComError, describeHresult } from '../com/hresult.js';
import { CLSID_CUIAutomation, IID_IUIAutomation } from '../com/guid.js';
import { createInstance, type ComPtr } from '../com/com.js';

/** The UI Automation client object, or why it could not be created (the auto fallback's reason). */
export function createAutomation(): { automation: ComPtr } | { reason: string } {
  try {
    return { automation: createInstance(CLSID_CUIAutomation, IID_IUIAutomation, 'IUIAutomation') };
  } catch (error) {
    if (error instanceof ComError) return { reason: `UI Automation is unavailable: ${error.call} answered ${describeHresult(error.hr)}` };
    return { reason: `UI Automation is unavailable: ${error instanceof Error ? error.message : String(error)}` };
  }
}
