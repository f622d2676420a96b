import { UI_COMMANDS, UI_EVENT_CHANNEL, uiCommandChannel, type IpcAnswer, type OverseerBridge, type UiCommand, type UiFrame } from '../protocol/index.js';

export type { OverseerBridge };

/** The part of Electron's ipcRenderer the bridge uses (so the bridge is testable as an object). */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, frame: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, frame: unknown) => void): unknown;
}

/**
 * Builds the bridge by looping over the UI channel table: a command added to the table is exposed
 * here with no edit. Exposes functions only, never ipcRenderer itself.
 */
export function buildBridge(ipc: IpcRendererLike): OverseerBridge {
  const commands = Object.fromEntries(
    (Object.keys(UI_COMMANDS) as UiCommand[]).map((c) => [c, (params: unknown) => ipc.invoke(uiCommandChannel(c), params) as Promise<IpcAnswer>]),
  ) as Record<UiCommand, (params: unknown) => Promise<IpcAnswer>>;
  return {
    commands: Object.freeze(commands),
    onEvent(listener) {
      const relay = (_event: unknown, frame: unknown): void => listener(frame as UiFrame);
      ipc.on(UI_EVENT_CHANNEL, relay);
      return () => {
        ipc.removeListener(UI_EVENT_CHANNEL, relay);
      };
    },
  };
}
