/// <reference types="vite/client" />
import type { OverseerBridge } from '../protocol/index.js';

declare global {
  interface Window {
    /** The desktop app's preload bridge; undefined in browser mode. */
    readonly overseer?: OverseerBridge;
  }
}
