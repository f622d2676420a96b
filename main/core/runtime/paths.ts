import { fileURLToPath } from 'node:url';

/**
 * Whether this module runs from its source file. Bundled (scripts/buildShell.mjs), it runs inside
 * its bundle, `dist/<entry>/<name>.mjs`, one level less deep than the source.
 */
const FROM_SOURCE = new URL(import.meta.url).pathname.endsWith('/main/core/runtime/paths.ts');

/** The repository (or unpacked package) root, with a trailing slash: three levels above this source file, two above a bundle. */
export const REPO_ROOT = fileURLToPath(new URL(FROM_SOURCE ? '../../..' : '../..', import.meta.url));
