import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { UiFrame } from '../../../protocol/index.js';
import { exactOrigin } from './auth.js';
import { lingeringClose } from './lingeringClose.js';
import type { ServerHost } from './sessionHost.js';
import type { UiAuth } from './uiAuth.js';

/** Largest UI frame accepted; larger ones close that one socket (1009), never the supervisor. */
export const MAX_UI_FRAME = 1024 * 1024;
/** Unsent bytes past which a UI socket gets no more events until it drains (then a snapshot). */
export const HIGH_WATER = 2 * 1024 * 1024;
/** Unsent bytes below which a socket that fell behind is caught up. */
const LOW_WATER = 256 * 1024;
const CATCH_UP_MS = 100;
/** Unsent bytes (answers included) past which a socket that does not read is closed. */
const MAX_UNREAD = 64 * 1024 * 1024;
/** The close code and reason a UI without the person's credential is sent (renderer/api reads it). */
export const UNAUTHORIZED_CLOSE = 4401;

function text(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/**
 * The UI channel over WebSocket at `/ui` (browser mode). It opens only for a page of this origin
 * that carries the person's cookie (docs/security.md); an agent's bearer token never opens it.
 * Every socket has its error path: a hostile frame (bad UTF-8, too large, not JSON) ends that
 * socket or is answered typed, and the supervisor keeps running.
 */
export function uiSocket(
  supervisor: Pick<ServerHost, 'ui'>,
  ui: UiAuth | undefined,
  log: (line: string) => void,
): { upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, port: number): 'ui' | 'refused'; closeAll(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_UI_FRAME });
  wss.on('error', (error) => log(`[ui] websocket server: ${error.message}`));

  const serve = (ws: WebSocket): void => {
    // Backpressure (docs/architecture.md#ui-channel): past HIGH_WATER unsent bytes a socket gets no
    // more events — answers to its commands still go out — and once it has drained below LOW_WATER
    // it is sent one fresh snapshot instead of everything it missed. Its buffer never grows without bound.
    let behind: ReturnType<typeof setInterval> | undefined;
    const catchUp = (): void => {
      if (ws.readyState !== ws.OPEN) return stopCatchingUp();
      if (ws.bufferedAmount > LOW_WATER) return;
      stopCatchingUp();
      supervisor.ui.resync(client).catch((error: unknown) => log(`[ui] resync failed: ${error instanceof Error ? error.message : String(error)}`));
    };
    const stopCatchingUp = (): void => {
      clearInterval(behind);
      behind = undefined;
    };
    const client = {
      send: (frame: UiFrame): void => {
        if (ws.readyState !== ws.OPEN) return;
        if (frame.type === 'event' && frame.event !== 'snapshot') {
          if (behind !== undefined) return;
          if (ws.bufferedAmount > HIGH_WATER) {
            log(`[ui] a UI socket fell ${ws.bufferedAmount} bytes behind: events are held back until it drains, then it gets a fresh snapshot`);
            behind = setInterval(catchUp, CATCH_UP_MS);
            return;
          }
        }
        ws.send(JSON.stringify(frame), (error) => error && log(`[ui] send failed: ${error.message}`));
        // Answers are never held back; a page that asks and never reads is cut off before it can grow our memory.
        if (ws.bufferedAmount > MAX_UNREAD) {
          log(`[ui] a UI socket left ${ws.bufferedAmount} bytes unread; it was closed (the page reconnects and gets a snapshot)`);
          ws.terminate();
        }
      },
    };
    ws.once('close', stopCatchingUp);
    ws.on('error', (error) => {
      log(`[ui] a UI socket failed and was closed: ${error.message}`);
      ws.terminate();
    });
    // Detached by identity, so a socket that closes while attach() still reads the snapshot leaves at once.
    ws.on('close', () => supervisor.ui.detach(client));
    supervisor.ui.attach(client).then(
      () => {},
      (error: unknown) => {
        log(`[ui] attaching a UI failed: ${error instanceof Error ? error.message : String(error)}`);
        ws.terminate();
      },
    );
    ws.on('message', (data, isBinary) => {
      let raw: unknown;
      try {
        raw = isBinary ? undefined : JSON.parse(text(data));
      } catch {
        raw = undefined;
      }
      supervisor.ui.receive(client, raw).catch((error: unknown) => log(`[ui] a frame failed: ${error instanceof Error ? error.message : String(error)}`));
    });
  };

  return {
    /** Answers `ui` when the socket is the person's signed-in UI, `refused` when it is being closed. */
    upgrade(req, socket, head, port) {
      socket.on('error', () => socket.destroy());
      const refuse = (status: string): 'refused' => {
        lingeringClose(socket, `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        return 'refused';
      };
      if (ui === undefined) return refuse('404 Not Found');
      // A browser always sends Origin on a WebSocket; anything else is not our page.
      if (!exactOrigin(req, port)) return refuse('403 Forbidden');
      const signedIn = ui.signedIn(req, port);
      wss.handleUpgrade(req, socket, head, (ws) => {
        if (!signedIn) {
          // Completed then closed, so the page can read why (a refused handshake tells it nothing).
          ws.on('error', () => ws.terminate());
          ws.close(UNAUTHORIZED_CLOSE, 'not signed in: open the link overseer serve printed');
          return;
        }
        serve(ws);
      });
      return signedIn ? 'ui' : 'refused';
    },
    closeAll() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
