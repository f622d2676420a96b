import { backendContract } from './backendContract.js';
import { sshSetup } from './sshLane.js';

backendContract('backend contract: atspi through an ssh connection (a private sshd whose sessions see a second private desktop)', () => sshSetup());
