// The connection registry (docs/connections.md#registry-and-tools): `connections.json` in the data
// folder, mode 0600, written atomically (temp file, fsync, rename), at most MAX_CONNECTIONS entries,
// names unique and never "local", and never key material. The file is the registry: the CLI and a
// running supervisor both read and write it, and the supervisor notices another writer's change
// (`refresh`). A file that cannot be read as a registry is kept aside, never dropped.
import { open, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ConnectionConfig,
  ConnectionsFile,
  LOCAL_CONNECTION_NAME,
  MAX_CONNECTIONS,
  SECRET_FIELDS,
  OverseerError,
  fail,
  invalidArgument,
} from '../../../protocol/index.js';

/** The registry's file name in the data folder. */
export const CONNECTIONS_FILE = 'connections.json';

/** Key names that carry key material under another spelling (an `-i` path, a PEM block). */
const SECRET_NAME = new RegExp(`^(${SECRET_FIELDS.join('|')})$|password|passphrase|private|secret|token|identity`, 'i');
/** Values that are key material whatever their field is called. */
const KEY_MATERIAL = /-----BEGIN [A-Z ]*PRIVATE KEY-----|^ssh-(rsa|ed25519|dss) AAAA|^ecdsa-sha2-/;

/**
 * Refuses an entry that names a secret field or carries key material, before the schema's
 * unknown-key error, so the person (or agent) is told why: a registry never holds secrets.
 */
export function refuseSecrets(raw: unknown): void {
  if (raw === null || typeof raw !== 'object') return;
  for (const [key, value] of Object.entries(raw)) {
    if (SECRET_NAME.test(key))
      throw fail('invalid_argument', `a connection never holds "${key}": no passwords, keys or tokens (ssh uses your own agent and ~/.ssh/config)`, {
        reason: 'secret_field',
        field: key,
      });
    if (typeof value === 'string' && KEY_MATERIAL.test(value))
      throw fail('invalid_argument', `the field "${key}" holds key material: a connection never holds keys`, { reason: 'secret_field', field: key });
  }
}

/** An entry as the registry takes it: no secrets, valid for its kind, never named "local". */
export function parseEntry(raw: unknown): ConnectionConfig {
  refuseSecrets(raw);
  const parsed = ConnectionConfig.safeParse(raw);
  if (!parsed.success) throw new OverseerError(invalidArgument(parsed.error, 'connection'));
  if (parsed.data.name === LOCAL_CONNECTION_NAME)
    throw fail('invalid_argument', '"local" is the desktop the supervisor runs on; give the connection another name', { reason: 'reserved_name' });
  return parsed.data;
}

/** What `refresh` saw change in the file since it was last read or written here. */
export interface RegistryChange {
  changed: boolean;
}

/** connections.json: read, validated, and written atomically. */
export class ConnectionRegistry {
  private entries: ConnectionConfig[] = [];
  /** mtime and size of the file as last read or written here (another writer changes them). */
  private seen = '';
  /** Set when the last load found the file broken: where it was kept, and why. */
  corrupt: { aside: string; why: string } | undefined;

  constructor(
    readonly dataDir: string,
    private readonly log: (line: string) => void = () => {},
  ) {}

  get path(): string {
    return join(this.dataDir, CONNECTIONS_FILE);
  }

  /** Every entry, in the order they were added. */
  list(): readonly ConnectionConfig[] {
    return this.entries;
  }

  get(name: string): ConnectionConfig | undefined {
    return this.entries.find((e) => e.name === name);
  }

  /**
   * Reads the file. Missing: no connections. Not a registry (bad JSON, a bad entry, secrets in it):
   * the file is renamed aside (`connections.json.corrupt-<time>`), reported, and the registry starts
   * empty, so nothing in it is used half-read and nothing is lost.
   */
  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.entries = [];
        this.seen = '';
        return;
      }
      throw error;
    }
    try {
      const json: unknown = JSON.parse(text);
      const list = (json as { connections?: unknown } | null)?.connections;
      if (Array.isArray(list)) for (const e of list) refuseSecrets(e);
      const file = ConnectionsFile.parse(json);
      const names = new Set<string>();
      for (const e of file.connections) {
        if (e.name === LOCAL_CONNECTION_NAME || names.has(e.name)) throw new Error(`the name "${e.name}" is reserved or used twice`);
        names.add(e.name);
      }
      this.entries = file.connections;
      this.seen = await this.stamp();
    } catch (error) {
      const aside = `${this.path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      await rename(this.path, aside);
      const why = error instanceof Error ? error.message.slice(0, 300) : String(error);
      this.log(`[connections] ${this.path} is not a valid registry (${why}); it was kept as ${aside} and no connections are loaded`);
      this.entries = [];
      this.seen = '';
      this.corrupt = { aside, why };
    }
  }

  /** Re-reads the file when another writer (`overseer connection …`) changed it since. */
  async refresh(): Promise<RegistryChange> {
    const now = await this.stamp();
    if (now === this.seen) return { changed: false };
    await this.load();
    return { changed: true };
  }

  /** Adds an entry (validated, secrets refused, name unique, at most MAX_CONNECTIONS) and saves. */
  async add(raw: unknown): Promise<ConnectionConfig> {
    await this.refresh();
    const entry = parseEntry(raw);
    if (this.get(entry.name) !== undefined)
      throw fail('invalid_argument', `a connection named "${entry.name}" exists already`, { reason: 'name_taken', name: entry.name });
    if (this.entries.length >= MAX_CONNECTIONS)
      throw fail('invalid_argument', `at most ${MAX_CONNECTIONS} connections; remove one first`, { reason: 'too_many', limit: MAX_CONNECTIONS });
    await this.save([...this.entries, entry]);
    return entry;
  }

  /** Turns an entry on or off and saves. */
  async setEnabled(name: string, enabled: boolean): Promise<ConnectionConfig> {
    await this.refresh();
    const entry = this.get(name);
    if (entry === undefined) throw fail('not_found', `no connection named "${name}"`, { name });
    const next = { ...entry, enabled };
    await this.save(this.entries.map((e) => (e.name === name ? next : e)));
    return next;
  }

  /** Removes an entry and saves. */
  async remove(name: string): Promise<void> {
    await this.refresh();
    if (this.get(name) === undefined) throw fail('not_found', `no connection named "${name}"`, { name });
    await this.save(this.entries.filter((e) => e.name !== name));
  }

  /** Writes the whole file atomically: a crash leaves the old file or the new one, never half of either. */
  private async save(entries: ConnectionConfig[]): Promise<void> {
    const file: ConnectionsFile = ConnectionsFile.parse({ version: 1, connections: entries });
    const tmp = `${this.path}.${process.pid}.tmp`;
    const handle = await open(tmp, 'w', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(file, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, this.path);
    // The folder entry too, so the rename itself survives a crash.
    const dir = await open(this.dataDir, 'r').catch(() => undefined);
    await dir?.sync().catch(() => {});
    await dir?.close();
    this.entries = entries;
    this.seen = await this.stamp();
  }

  private async stamp(): Promise<string> {
    try {
      const s = await stat(this.path);
      return `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch {
      return '';
    }
  }
}
