import { atspiSetup } from './atspiLane.js';
import { backendContract } from './backendContract.js';

backendContract('backend contract: atspi with bulk Cache.GetItems (GTK3 fixture on a private desktop)', () => atspiSetup());
