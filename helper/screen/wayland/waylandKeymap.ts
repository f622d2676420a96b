// Which characters the desktop's keyboard can type (docs/wayland.md#typing). The RemoteDesktop
// portal takes keysyms, and the compositor types one only if a layout has it; any other keysym it
// drops without a word. So text is checked here first, against the same keymap compiled with
// libxkbcommon (the library both compositors use), searched as the desktop searches it:
// - GNOME (mutter): the layout in use, at the first key that has the keysym, on level 1, 2 with
//   Shift or 3 with AltGr. Layouts from GNOME's input-sources settings.
// - KDE Plasma 5.27 (xdg-desktop-portal-kde + KWin): the keysym is looked up in the FIRST layout
//   only, and the key found is then typed with the layout in use, so a character is typeable only if
//   the first layout has it and the layout in use has the same keysym on that key and level.
//   Layouts from kxkbrc; when the layout in use cannot be told, only a single layout is trusted.
// A character that would be dropped (or typed as another) is refused before anything is typed.

import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type * as KoffiModule from 'koffi';

/** How to type one character: the keysym the compositor will find on the current layout. */
export interface Typeable {
  keysym: number;
  /** 0: plain, 1: with Shift, 2: with AltGr (ISO_Level3_Shift). */
  level: number;
}

/** The current layout as the compositor holds it. */
export interface Keymap {
  /** e.g. `us`, or `de(nodeadkeys)`: the layout the text is checked against. */
  layout: string;
  /** The keysym to send for a character, or undefined if this layout cannot type it. */
  typeable(codePoint: number): Typeable | undefined;
  /** Whether the layout has a keysym at all (a named key such as Return or F5). */
  hasKeysym(keysym: number): boolean;
}

/** Why the keymap is unknown: no GNOME input-sources settings, or no libxkbcommon to compile them. */
export class KeymapUnknown extends Error {}

/** The desktop's layouts, and how its portal turns a keysym into a key. */
export interface InputSources {
  layouts: Array<{ layout: string; variant: string }>;
  /** Index into `layouts` of the one in use. */
  current: number;
  options: string;
  /** Index into `layouts` of the one a keysym is looked up in (KWin 5.27: always 0); default `current`. */
  lookup?: number;
}

const XKB_KEY_SHIFT_L = 0xffe1;
const XKB_KEY_ISO_LEVEL3_SHIFT = 0xfe03;
/** GNOME Shell puts at most four layouts in one keymap (its input source manager's groups). */
const MAX_LAYOUTS = 4;

function gsettings(key: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('gsettings', ['get', 'org.gnome.desktop.input-sources', key], { timeout: 3000, env }, (error, stdout) => {
      if (error !== null) reject(new KeymapUnknown(`gsettings get org.gnome.desktop.input-sources ${key} failed: ${error.message.split('\n')[0] ?? ''}`));
      else resolve(stdout.trim());
    });
  });
}

/** The ('type', 'id') pairs of a GVariant text such as `[('xkb', 'us'), ('ibus', 'anthy')]`. */
export function parseSources(text: string): Array<[string, string]> {
  return [...text.matchAll(/\(\s*'([^']*)'\s*,\s*'([^']*)'\s*\)/g)].map((m) => [m[1] ?? '', m[2] ?? '']);
}

/** The strings of a GVariant text such as `['compose:ralt']` or `@as []`. */
export function parseStrings(text: string): string[] {
  return [...text.matchAll(/'([^']*)'/g)].map((m) => m[1] ?? '');
}

/**
 * The layouts and the one in use, from the desktop's own settings (GNOME's input sources, KDE's
 * kxkbrc); KeymapUnknown when they cannot be read or are beyond this model. `kdeLayoutInUse` asks
 * KDE which layout is in use (undefined: it cannot be told).
 */
export async function readInputSources(env: NodeJS.ProcessEnv, kdeLayoutInUse?: () => Promise<number | undefined>): Promise<InputSources> {
  // Each desktop keeps its layouts in its own place; another's settings may exist and say nothing true.
  const desktops = (env['XDG_CURRENT_DESKTOP'] ?? '').split(':').map((d) => d.toUpperCase());
  if (desktops.includes('GNOME')) return readGnomeSources(env);
  if (desktops.includes('KDE')) return readKdeSources(env, kdeLayoutInUse);
  throw new KeymapUnknown(`the keyboard layouts of this desktop (${env['XDG_CURRENT_DESKTOP'] ?? 'unnamed'}) are read only on GNOME and KDE`);
}

/** The [Layout] group of a kxkbrc text: its LayoutList, VariantList and Options (absent: `us`, as KDE defaults). */
export function parseKxkbrc(text: string): { layouts: Array<{ layout: string; variant: string }>; options: string } {
  const values = new Map<string, string>();
  let group = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) group = line;
    else if (group === '[Layout]' && line.includes('=')) {
      const at = line.indexOf('=');
      values.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
    }
  }
  const list = (key: string): string[] => (values.get(key) ?? '').split(',').map((v) => v.trim());
  // Use=false: KDE does not manage the layouts at all, and KWin keeps its default (`us`).
  const names = values.get('Use') === 'false' ? [] : list('LayoutList').filter((l) => l !== '');
  const variants = list('VariantList');
  if (names.length === 0) return { layouts: [{ layout: 'us', variant: '' }], options: '' };
  return { layouts: names.map((layout, i) => ({ layout, variant: variants[i] ?? '' })), options: values.get('Options') ?? '' };
}

/** KDE's layouts from kxkbrc; a keysym is looked up in the first (KWin 5.27), typed with the one in use. */
async function readKdeSources(env: NodeJS.ProcessEnv, layoutInUse?: () => Promise<number | undefined>): Promise<InputSources> {
  const home = env['HOME'] ?? '';
  const config = env['XDG_CONFIG_HOME'] ?? (home === '' ? '' : path.join(home, '.config'));
  if (config === '') throw new KeymapUnknown('neither XDG_CONFIG_HOME nor HOME is set, so kxkbrc cannot be found');
  let text = '';
  try {
    text = await readFile(path.join(config, 'kxkbrc'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new KeymapUnknown(`kxkbrc cannot be read: ${(error as Error).message}`);
  }
  const { layouts, options } = parseKxkbrc(text);
  if (layouts.length > MAX_LAYOUTS) throw new KeymapUnknown(`${layouts.length} keyboard layouts: more than ${MAX_LAYOUTS} are beyond this check`);
  if (layouts.length === 1) return { layouts, current: 0, lookup: 0, options };
  const current = await layoutInUse?.().catch(() => undefined);
  if (current === undefined || !Number.isInteger(current) || current < 0 || current >= layouts.length)
    throw new KeymapUnknown(`KDE has ${layouts.length} keyboard layouts and which one is in use cannot be told`);
  return { layouts, current, lookup: 0, options };
}

/** GNOME's input sources: the layouts, the one in use (most recently used) and the options. */
async function readGnomeSources(env: NodeJS.ProcessEnv): Promise<InputSources> {
  const [sources, mru, options] = await Promise.all([gsettings('sources', env), gsettings('mru-sources', env), gsettings('xkb-options', env)]);
  const all = parseSources(sources);
  const xkb = all.filter(([type]) => type === 'xkb');
  if (xkb.length === 0) return { layouts: [{ layout: 'us', variant: '' }], current: 0, options: parseStrings(options).join(',') };
  if (xkb.length > MAX_LAYOUTS)
    throw new KeymapUnknown(`${xkb.length} keyboard layouts: GNOME splits more than ${MAX_LAYOUTS} into groups this check does not model`);
  const inUse = parseSources(mru)[0] ?? all[0];
  if (inUse !== undefined && inUse[0] !== 'xkb')
    throw new KeymapUnknown(`the input source in use is an input method (${inUse[0]}:${inUse[1]}), which turns keys into text itself`);
  const layouts = xkb.map(([, id]) => {
    const [layout = '', variant = ''] = id.split('+');
    return { layout, variant };
  });
  const current = Math.max(
    0,
    xkb.findIndex(([, id]) => id === inUse?.[1]),
  );
  return { layouts, current, options: parseStrings(options).join(',') };
}

type Koffi = typeof KoffiModule;

/** libxkbcommon's functions, loaded once. */
interface Xkb {
  koffi: Koffi;
  contextNew: (flags: number) => unknown;
  contextUnref: (ctx: unknown) => void;
  keymapNew: (ctx: unknown, names: Record<string, string>, flags: number) => unknown;
  keymapUnref: (keymap: unknown) => void;
  minKeycode: (keymap: unknown) => number;
  maxKeycode: (keymap: unknown) => number;
  numLevels: (keymap: unknown, key: number, layout: number) => number;
  symsByLevel: (keymap: unknown, key: number, layout: number, level: number, out: unknown[]) => number;
  toUtf32: (keysym: number) => number;
}

let loaded: Promise<Xkb> | undefined;

function xkb(): Promise<Xkb> {
  loaded ??= (async () => {
    let koffi: Koffi;
    try {
      koffi = (await import('koffi')).default as unknown as Koffi;
    } catch (error) {
      throw new KeymapUnknown(`koffi is not available to load libxkbcommon: ${error instanceof Error ? error.message : String(error)}`);
    }
    let lib;
    try {
      lib = koffi.load('libxkbcommon.so.0');
    } catch (error) {
      throw new KeymapUnknown(`libxkbcommon.so.0 could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    }
    koffi.struct('overseer_xkb_rule_names', {
      rules: 'const char *',
      model: 'const char *',
      layout: 'const char *',
      variant: 'const char *',
      options: 'const char *',
    });
    const f = (decl: string): ((...args: unknown[]) => unknown) => lib.func(decl) as (...args: unknown[]) => unknown;
    const fns = {
      contextNew: f('void *xkb_context_new(int flags)'),
      contextUnref: f('void xkb_context_unref(void *ctx)'),
      keymapNew: f('void *xkb_keymap_new_from_names(void *ctx, const overseer_xkb_rule_names *names, int flags)'),
      keymapUnref: f('void xkb_keymap_unref(void *keymap)'),
      minKeycode: f('uint32_t xkb_keymap_min_keycode(void *keymap)'),
      maxKeycode: f('uint32_t xkb_keymap_max_keycode(void *keymap)'),
      numLevels: f('uint32_t xkb_keymap_num_levels_for_key(void *keymap, uint32_t key, uint32_t layout)'),
      symsByLevel: f('int xkb_keymap_key_get_syms_by_level(void *keymap, uint32_t key, uint32_t layout, uint32_t level, _Out_ const uint32_t **syms)'),
      toUtf32: f('uint32_t xkb_keysym_to_utf32(uint32_t keysym)'),
    };
    return {
      koffi,
      contextNew: (flags) => fns.contextNew(flags),
      contextUnref: (ctx) => void fns.contextUnref(ctx),
      keymapNew: (ctx, names, flags) => fns.keymapNew(ctx, names, flags),
      keymapUnref: (keymap) => void fns.keymapUnref(keymap),
      minKeycode: (keymap) => Number(fns.minKeycode(keymap)),
      maxKeycode: (keymap) => Number(fns.maxKeycode(keymap)),
      numLevels: (keymap, key, layout) => Number(fns.numLevels(keymap, key, layout)),
      symsByLevel: (keymap, key, layout, level, out) => Number(fns.symsByLevel(keymap, key, layout, level, out)),
      toUtf32: (keysym) => Number(fns.toUtf32(keysym)),
    };
  })();
  return loaded;
}

/** Compiles the layouts with libxkbcommon and indexes the current one as the compositor searches it. */
export async function compileKeymap(sources: InputSources): Promise<Keymap> {
  const { koffi, contextNew, contextUnref, keymapNew, keymapUnref, minKeycode, maxKeycode, numLevels, symsByLevel, toUtf32 } = await xkb();
  const context: unknown = contextNew(0);
  if (context === null) throw new KeymapUnknown('xkb_context_new failed');
  try {
    const spec = {
      rules: 'evdev',
      model: 'pc105',
      layout: sources.layouts.map((l) => l.layout).join(','),
      variant: sources.layouts.map((l) => l.variant).join(','),
      options: sources.options,
    };
    const keymap: unknown = keymapNew(context, spec, 0);
    if (keymap === null) throw new KeymapUnknown(`libxkbcommon could not compile the layouts ${spec.layout} (${spec.variant}) with options ${spec.options}`);
    try {
      // The first key and level that has each keysym, in the compositor's search order.
      const first = new Map<number, Typeable>();
      const byChar = new Map<number, number[]>();
      const min = minKeycode(keymap);
      const max = maxKeycode(keymap);
      const symsAt = (key: number, layout: number, level: number): number[] => {
        const out: unknown[] = [null];
        const count = symsByLevel(keymap, key, layout, level, out);
        return count <= 0 || out[0] === null ? [] : (koffi.decode(out[0], 'uint32_t', count) as number[]);
      };
      // The layout the keysym is looked up in; the key found is then typed with the layout in use.
      const lookup = sources.lookup ?? sources.current;
      for (let key = min; key < max; key++) {
        const levels = numLevels(keymap, key, lookup);
        for (let level = 0; level < levels; level++) {
          const syms = symsAt(key, lookup, level);
          // Typed with another layout, the key must give the same keysym there, or another character comes out.
          const typed = lookup === sources.current ? syms : symsAt(key, sources.current, level);
          for (const keysym of syms) {
            if (first.has(keysym)) continue;
            first.set(keysym, typed.includes(keysym) ? { keysym, level } : { keysym, level: -1 });
            const cp = toUtf32(keysym);
            if (cp !== 0) byChar.set(cp, [...(byChar.get(cp) ?? []), keysym]);
          }
        }
      }
      const reachable = (t: Typeable | undefined): boolean =>
        t !== undefined && (t.level === 0 || (t.level === 1 && first.has(XKB_KEY_SHIFT_L)) || (t.level === 2 && first.has(XKB_KEY_ISO_LEVEL3_SHIFT)));
      const named = (i: number): string => {
        const l = sources.layouts[i] ?? { layout: 'us', variant: '' };
        return l.variant === '' ? l.layout : `${l.layout}(${l.variant})`;
      };
      return {
        layout: lookup === sources.current ? named(sources.current) : `${named(sources.current)} (keys looked up in ${named(lookup)})`,
        typeable(codePoint) {
          const options = (byChar.get(codePoint) ?? []).map((keysym) => first.get(keysym)).filter(reachable);
          return options.sort((a, b) => (a?.level ?? 0) - (b?.level ?? 0))[0];
        },
        hasKeysym: (keysym) => reachable(first.get(keysym)),
      };
    } finally {
      keymapUnref(keymap);
    }
  } finally {
    contextUnref(context);
  }
}

/** The keymap of the session `env` names, or why it is unknown. */
export async function loadKeymap(env: NodeJS.ProcessEnv, kdeLayoutInUse?: () => Promise<number | undefined>): Promise<Keymap> {
  return compileKeymap(await readInputSources(env, kdeLayoutInUse));
}
