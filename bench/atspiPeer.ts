// The read bench's peer: a fresh Debian python running bench/pyatspiWalk.py against one window,
// reading either the text answer's fields or those plus extents.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../main/core/runtime/paths.js';
import type { AppSpec } from './readApps.js';

const PYTHON = '/usr/bin/python3';
const PEER_SCRIPT = path.join(REPO_ROOT, 'bench', 'pyatspiWalk.py');
const PEER_TIMEOUT_MS = 15 * 60_000;

/** pyatspi walks in one process: 1 cold + the rest repeated. Fewer for the large windows (a walk takes seconds). */
export const PEER_REPEAT_SMALL = 11;
export const PEER_REPEAT_LARGE = 6;

/** Which fields the peer reads: `text` = the helper's default text answer (no extents), `full` = with extents. */
export type PeerFields = 'text' | 'full';

/** One walk of the peer. */
export interface PeerIteration {
  ms: number;
  nodes: number;
  errors: Record<string, number>;
}

/** What pyatspiWalk.py answers. */
export interface PeerFigures {
  cold_ms: number;
  repeated_ms_median: number | null;
  node_count: number;
  find_ms: number;
  order: string;
  fields_mode: PeerFields;
  iterations: PeerIteration[];
  window: unknown;
  cache: string;
  note: string;
}

/** A fresh python process walking the window of `pid` (by its frame's name when it has one). */
export function measurePeer(env: Record<string, string>, spec: AppSpec, pid: number, fields: PeerFields, maxNodes: number): Promise<PeerFigures> {
  const args = [
    PEER_SCRIPT,
    '--max-nodes',
    String(maxNodes),
    '--max-children',
    '5000',
    '--repeat',
    String(spec.large ? PEER_REPEAT_LARGE : PEER_REPEAT_SMALL),
    '--fields',
    fields,
    '--pid',
    String(pid),
  ];
  if (spec.frameName !== null) args.push('--title', spec.frameName);
  args.push(...(spec.peerArgs ?? []));
  return new Promise<PeerFigures>((resolve, reject) => {
    const child = spawn(PYTHON, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // this child only, by its pid
    }, PEER_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, sig) => {
      clearTimeout(timer);
      let parsed: unknown;
      try {
        parsed = JSON.parse(out.trim().split('\n').pop() ?? '');
      } catch {
        reject(new Error(`pyatspi walk exited (${sig ?? String(code)}) without a JSON answer: ${err.slice(-1500) || out.slice(-500)}`));
        return;
      }
      const answer = parsed as Partial<PeerFigures> & { error?: string };
      if (code !== 0 || answer.error !== undefined || answer.iterations === undefined) {
        reject(new Error(`pyatspi walk failed (exit ${sig ?? String(code)}): ${answer.error ?? ''} ${err.slice(-1500)}`));
        return;
      }
      resolve({ ...answer, fields_mode: fields } as PeerFigures);
    });
  });
}
