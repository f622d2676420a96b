// The remote helper's entry (docs/connections.md#the-helper-on-the-remote): one self-contained file
// that an ssh connection copies to the remote and runs there. It is also its own screen encoder:
// the encoder pool starts this same file on its worker threads, which then run the encoder instead
// of the helper, so the remote holds one file and no node_modules.
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  const { encodeWithFile } = await import('./screen/encoderPool.js');
  encodeWithFile(new URL(import.meta.url));
  await import('./main.js');
} else {
  await import('./screen/encodeWorker.js');
}
