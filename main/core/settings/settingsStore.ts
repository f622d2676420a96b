import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_SETTINGS, PolicyRule, Settings } from '../../../protocol/index.js';
import { z } from 'zod';

const Stored = z.object({ settings: Settings.partial().optional(), rules: z.array(PolicyRule).optional() });

/** Settings and persistent policy rules in `<dataDir>/settings.json` (mode 0600), written atomically. */
export class SettingsStore {
  settings: Settings = { ...DEFAULT_SETTINGS };
  rules: PolicyRule[] = [];

  constructor(
    private readonly dataDir: string,
    private readonly log: (line: string) => void,
  ) {}

  private get path(): string {
    return join(this.dataDir, 'settings.json');
  }

  /** Loads the file; a missing file means defaults, a broken one is logged and replaced by defaults. */
  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch {
      return;
    }
    try {
      const stored = Stored.parse(JSON.parse(text));
      this.settings = Settings.parse({ ...DEFAULT_SETTINGS, ...stored.settings });
      this.rules = (stored.rules ?? []).filter((r) => r.kind === 'deny_app');
    } catch (error) {
      this.log(`[settings] ${this.path} is not valid (${error instanceof Error ? error.message.slice(0, 200) : String(error)}); using defaults`);
    }
  }

  /** Applies a partial update after validating the result, and saves. */
  async update(patch: { [K in keyof Settings]?: Settings[K] | undefined }, rules: PolicyRule[]): Promise<Settings> {
    this.settings = Settings.parse({ ...this.settings, ...patch });
    this.rules = rules.filter((r) => r.kind === 'deny_app');
    const tmp = `${this.path}.tmp`;
    await writeFile(tmp, JSON.stringify({ settings: this.settings, rules: this.rules }, null, 2), { mode: 0o600 });
    await rename(tmp, this.path);
    return this.settings;
  }
}
