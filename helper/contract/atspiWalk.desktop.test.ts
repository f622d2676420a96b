import { atspiSetup } from './atspiLane.js';
import { backendContract } from './backendContract.js';

// Toolkits that do not publish Cache.GetItems are read by walking; the same contract must hold.
backendContract('backend contract: atspi walking without Cache.GetItems', () => atspiSetup({ OVERSEER_ATSPI_NO_BULK: '1' }));
