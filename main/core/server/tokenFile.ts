import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The shortest token accepted. */
export const MIN_TOKEN_LENGTH = 16;

/** Makes a fresh random token. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Writes the token file of a data folder, readable by the user only. */
export async function writeTokenFile(dataDir: string, token: string): Promise<void> {
  await writeFile(join(dataDir, 'token'), `${token}\n`, { mode: 0o600 });
}

/**
 * The data folder's token, made and saved on first use. The desktop app keeps it across launches
 * so agents configured with it keep working; a file too short to be a token is replaced.
 */
export async function loadOrCreateToken(dataDir: string): Promise<string> {
  const existing = await readFile(join(dataDir, 'token'), 'utf8').then((t) => t.trim(), () => '');
  if (existing.length >= MIN_TOKEN_LENGTH && /^[\w-]+$/.test(existing)) return existing;
  const token = newToken();
  await writeTokenFile(dataDir, token);
  return token;
}
