import { contextBridge, ipcRenderer } from 'electron';
import { buildBridge } from './bridge.js';

// The only bridge between the sandboxed page and the app: functions built from the UI channel table.
contextBridge.exposeInMainWorld('overseer', buildBridge(ipcRenderer));
