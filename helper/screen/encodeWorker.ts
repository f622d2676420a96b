// The screen tier's encoder thread (docs/architecture.md#screen-work-off-the-rpc-loop): takes frames
// from helper/screen/encoderPool.ts, answers each with its encoded picture or its typed error. It
// never writes to stdout (the helper's wire) or stderr: what it prints is posted to the pool, which
// logs it. Its stdio streams are never opened at all (Node under Wine cannot open them).
import { parentPort } from 'node:worker_threads';
import { OverseerError } from '../../protocol/errors.js';
import { encodeFrame, type EncodeRequest } from './image/encodeFrame.js';

/** A job as the pool posts it. */
interface Job {
  id: number;
  request: EncodeRequest;
}

const port = parentPort;
if (port === null) throw new Error('encodeWorker runs as a worker thread only');
// Anything printed (a library's warning) goes to the helper's log, never towards its wire.
const toLog = (chunk: string | Uint8Array): boolean => {
  port.postMessage({ log: typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8') });
  return true;
};
process.stdout.write = toLog;
process.stderr.write = toLog;
port.on('message', ({ id, request }: Job) => {
  try {
    port.postMessage({ id, result: encodeFrame(request) });
  } catch (error) {
    // Typed errors cross as their info; anything else is a bug, reported with its message.
    const info = error instanceof OverseerError ? error.info : undefined;
    port.postMessage({ id, error: info ?? { message: error instanceof Error ? (error.stack ?? error.message) : String(error) } });
  }
});
port.postMessage({ ready: true });
