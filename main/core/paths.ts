import { fileURLToPath } from 'node:url';

/** The repository (or unpacked package) root, with a trailing slash: two levels above this file. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
