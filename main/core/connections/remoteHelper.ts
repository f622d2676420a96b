// The helper bundle an ssh connection installs on the remote (docs/connections.md#the-helper-on-the-remote):
// one file (scripts/buildShell.mjs --remote-helper), kept there under its content hash the way an editor
// installs its remote server, so a new version never overwrites a running one and an unchanged
// one is never copied twice.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fail } from '../../../protocol/index.js';
import { REPO_ROOT } from '../runtime/paths.js';

/** Where `npm run build` writes the remote helper. */
export const DEFAULT_REMOTE_HELPER = `${REPO_ROOT}dist/helper/remote.mjs`;
/** Hex digits of the sha256 in the remote file's name. */
const HASH_CHARS = 16;
/** The lowest Node.js major the bundle runs on. */
export const MIN_REMOTE_NODE = 20;

/** The bundle's bytes and the hash it is installed under. */
export interface RemoteHelper {
  bytes: Buffer;
  /** The first HASH_CHARS hex digits of its sha256. */
  hash: string;
  /** Its whole sha256 (checked on the remote after copying). */
  sha256: string;
}

/** Reads the bundle at `file` (connection_unavailable helper_missing when it was never built). */
export function loadRemoteHelper(file: string, connection: string): RemoteHelper {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw fail('connection_unavailable', `the remote helper bundle ${file} is missing`, {
      connection,
      reason: 'helper_missing',
      hint: 'build it with `npm run build` (it writes dist/helper/remote.mjs)',
    });
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { bytes, hash: sha256.slice(0, HASH_CHARS), sha256 };
}

/**
 * The remote check: prints the remote Node's version and the installed file's sha256 (or
 * "missing"). $1 is the node to run, $2 the hash in the file's name.
 */
export const CHECK_SCRIPT = [
  'f="${XDG_CACHE_HOME:-$HOME/.cache}/overseer/helper-$2.mjs"',
  'command -v "$1" >/dev/null 2>&1 || { echo "no-node"; exit 0; }',
  `exec "$1" -e 'const f=process.argv[1];let h="missing";try{h=require("crypto").createHash("sha256").update(require("fs").readFileSync(f)).digest("hex")}catch{}process.stdout.write(process.versions.node+" "+process.platform+" "+h)' "$f"`,
].join('\n');

/**
 * The remote install: the bundle arrives on stdin, is written to a temporary file in a folder only
 * this user can enter (0700, file 0600) and renamed into place, so a helper never starts from half a file.
 */
export const INSTALL_SCRIPT = [
  'umask 077',
  'd="${XDG_CACHE_HOME:-$HOME/.cache}/overseer"',
  'mkdir -p "$d" && chmod 700 "$d" || exit 3',
  't="$d/.helper-$1.$$.tmp"',
  'cat > "$t" || { rm -f "$t"; exit 4; }',
  'mv -f "$t" "$d/helper-$1.mjs"',
].join('\n');

/**
 * Starts the installed helper: $1 the hash, $2 the node, the rest `NAME=value` for its environment.
 * The helper's stdio is ssh's: its frames on stdout, its log on stderr.
 */
export const RUN_SCRIPT = ['f="${XDG_CACHE_HOME:-$HOME/.cache}/overseer/helper-$1.mjs"', 'n="$2"', 'shift 2', 'exec env "$@" "$n" "$f"'].join('\n');
