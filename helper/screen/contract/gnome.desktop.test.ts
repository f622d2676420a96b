// The screen contract against the Wayland portal backend (in-process) on a private headless GNOME
// session, and what only the portals have.

import { screenContract } from './screenContract.js';
import { gnomeSetup } from './gnomeLane.js';

screenContract('screen contract: Wayland portals (GTK canvas on a headless GNOME session)', gnomeSetup);
