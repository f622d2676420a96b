import { UI_EVENT_CHANNEL, errorInfo, type IpcAnswer, type UiCommand, type UiFrame } from '../../protocol/index.js';
import type { UiHub } from '../core/ui/uiHub.js';
import { IPC_CHANNELS, isTrustedSender } from './security.js';

/** The part of an IPC event the sender check reads (Electron's IpcMainInvokeEvent has it). */
export interface IpcInvokeEventLike {
  senderFrame: { url: string; parent: unknown } | null;
}

/** The part of Electron's ipcMain this module uses. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, params: unknown) => Promise<IpcAnswer>): void;
  removeHandler(channel: string): void;
}

/**
 * Registers one IPC handler per UI command, by looping over the table. Each call is answered only
 * for the top frame of the app's own page, and is validated and run by the same UiHub that serves
 * the WebSocket, so IPC and browser mode cannot drift apart. Returns the unregistration.
 */
export function registerUiIpc(ipc: IpcMainLike, hub: Pick<UiHub, 'invoke'>, appUrl: string, log: (line: string) => void): () => void {
  const channels = Object.entries(IPC_CHANNELS) as [UiCommand, string][];
  for (const [command, channel] of channels) {
    ipc.handle(channel, async (event, params) => {
      const frame = event.senderFrame;
      if (!isTrustedSender(frame === null ? null : { url: frame.url, top: frame.parent === null }, appUrl)) {
        log(
          `[ipc] refused ${command} from ${frame === null ? 'a destroyed frame' : `${frame.parent === null ? 'top frame' : 'subframe'} ${frame.url.slice(0, 200)}`}`,
        );
        return { ok: false, error: errorInfo('denied', 'UI commands are accepted only from the app’s own page') };
      }
      return hub.invoke(command, params);
    });
  }
  return () => {
    for (const [, channel] of channels) ipc.removeHandler(channel);
  };
}

/** The part of a window's webContents that receives events. */
export interface EventTarget {
  isDestroyed(): boolean;
  send(channel: string, frame: UiFrame): void;
}

/** A UiHub client that forwards event frames to the page; other frames never travel this way. */
export function eventRelay(target: () => EventTarget | undefined): { send(frame: UiFrame): void } {
  return {
    send(frame) {
      const t = target();
      if (frame.type === 'event' && t !== undefined && !t.isDestroyed()) t.send(UI_EVENT_CHANNEL, frame);
    },
  };
}
