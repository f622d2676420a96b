import { backendContract } from './backendContract.js';
import { osworldContractSetup } from './osworldLane.js';

backendContract('backend contract: osworld (an OSWorld-compatible server over a private desktop)', osworldContractSetup);
