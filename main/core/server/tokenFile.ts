import { randomBytes } from 'node:crypto';
import { chmod, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** The shortest token accepted. */
export const MIN_TOKEN_LENGTH = 16;
/** The agent credential's file: the MCP bearer token, read by `overseer mcp` (docs/security.md). */
export const AGENT_TOKEN_FILE = 'token';
/** The person's credential's file: the UI cookie secret, never given to an agent (docs/security.md). */
export const UI_SECRET_FILE = 'ui-secret';

/** Makes a fresh random token. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Writes a secret file readable by the user only. It is written to a fresh 0600 file and renamed
 * over the old one, so a file that existed with wider permissions never holds the new secret.
 */
export async function writeSecretFile(dataDir: string, name: string, secret: string): Promise<void> {
  const path = join(dataDir, name);
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(`${secret}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await chmod(tmp, 0o600); // the umask never widens it, but say so explicitly
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => {});
    throw error;
  }
}

/** Writes the agent token file of a data folder. */
export function writeTokenFile(dataDir: string, token: string): Promise<void> {
  return writeSecretFile(dataDir, AGENT_TOKEN_FILE, token);
}

/**
 * A data folder's secret, made and saved on first use; kept across launches (the desktop app's
 * agent token, so configured agents keep working; the UI secret, so a signed-in browser stays
 * signed in). A file too short to be a secret is replaced; a readable one is narrowed to 0600.
 */
export async function loadOrCreateSecret(dataDir: string, name: string): Promise<string> {
  const path = join(dataDir, name);
  const existing = await readFile(path, 'utf8').then(
    (t) => t.trim(),
    () => '',
  );
  if (existing.length >= MIN_TOKEN_LENGTH && /^[\w-]+$/.test(existing)) {
    await chmod(path, 0o600);
    return existing;
  }
  const secret = newToken();
  await writeSecretFile(dataDir, name, secret);
  return secret;
}

/** The data folder's agent token (see loadOrCreateSecret). */
export function loadOrCreateToken(dataDir: string): Promise<string> {
  return loadOrCreateSecret(dataDir, AGENT_TOKEN_FILE);
}
