import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { HELPER_METHODS, HELPER_PROTOCOL_VERSION, ACTIONS, fail, type HelloResult } from '../../protocol/index.js';
import type { HelperProcess } from '../core/helperLink/helperProcess.js';
import { RpcPeer } from '../../rpc/rpcPeer.js';
import { createLinkedPair } from '../../rpc/transport.js';

let nextPid = 50_000;

/** One fake helper process: answers hello, can freeze (stops answering) or die (as SIGKILL would). */
export interface FakeHelperProcess extends HelperProcess {
  /** Stop answering anything (a wedged helper). */
  freeze(): void;
  /** Exit as if killed. */
  die(): void;
  /** Signals the supervisor sent it. */
  readonly signals: string[];
  /** Sends the supervisor a notification, as the real helper does. */
  notify(method: string, params: unknown): void;
}

/**
 * A helper process in memory, for unit tests of the helper supervisor: the real RpcPeer on both
 * ends of a linked pair, the real hello answer shape, and a child that can be killed.
 */
export function fakeHelperProcess(): FakeHelperProcess {
  const [ours, theirs] = createLinkedPair();
  let frozen = false;
  let exit: (code: number | null) => void = () => {};
  const exited = new Promise<number | null>((resolve) => (exit = resolve));
  const pid = nextPid++;
  const signals: string[] = [];
  const hello: HelloResult = {
    backend: 'atspi',
    version: 'fake',
    protocol_version: HELPER_PROTOCOL_VERSION,
    pid,
    capabilities: [],
    actions: [...ACTIONS],
    limits: {},
  };
  const server = new RpcPeer(theirs, (method) =>
    frozen
      ? new Promise(() => {})
      : method === 'hello' || method === 'configure'
        ? Promise.resolve(method === 'hello' ? hello : { ok: true })
        : Promise.reject(fail('internal', `the fake helper has no ${method}`)),
  );
  const peer = new RpcPeer(ours);
  server.start();
  peer.start();
  let dead = false;
  const die = (): void => {
    if (dead) return;
    dead = true;
    ours.close();
    exit(null);
  };
  const child = Object.assign(new EventEmitter(), {
    pid,
    stderr: null,
    kill(signal: string) {
      signals.push(signal);
      die();
      return true;
    },
  }) as unknown as ChildProcess;
  return {
    child,
    peer,
    exited,
    signals,
    async call(method, params, options) {
      const result = await peer.request(method, params, options);
      return HELPER_METHODS[method].result.parse(result) as never;
    },
    stderr: () => '',
    onStderrLine: undefined,
    close() {
      die();
      return exited;
    },
    freeze: () => (frozen = true),
    die,
    notify: (method, params) => server.notify(method, params),
  };
}
