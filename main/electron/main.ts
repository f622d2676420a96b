// The desktop app's entry point (bundled to dist/electron/main.mjs; `npm start` runs it).
import { runDesktopApp } from './desktopApp.js';

runDesktopApp();
