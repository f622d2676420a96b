// The Wayland screen backend (docs/wayland.md): the desktop portals instead of a display server
// anyone may read. Capture through the Screenshot portal, pointer and keys through the
// RemoteDesktop portal, each with the person's consent, asked by the desktop itself. Wayland tells
// no client where windows are, so this backend lists none: nothing is masked or refused by where a
// window is, and capabilities say so (`no_window_positions`) instead of guessing.

import { fail } from '../../../protocol/index.js';
import { keysymOf, knownKeyNames } from '../keysyms.js';
import type {
  CapturedImage,
  KeyName,
  Monitor,
  MouseButton,
  NativeWindow,
  ScreenBackend,
  ScreenCapabilities,
  ScreenRect,
  ScrollDirection,
} from '../screenBackend.js';
import { cropFrame } from '../image/crop.js';
import { gnomeMonitors } from './gnomeDisplays.js';
import { PortalBus } from './portalBus.js';
import { portalDesktop } from './portalDesktop.js';
import { INPUT_PATH, RemoteDesktopPortal, type SharedStream, type TokenStore } from './remoteDesktopPortal.js';
import { SCREENSHOT_PATH, ScreenshotPortal } from './screenshotPortal.js';
import { KeymapUnknown, loadKeymap, type Keymap } from './waylandKeymap.js';
import { ClipboardUnavailable, MAX_OFFER_BYTES, XwaylandClipboard } from './xwaylandClipboard.js';

/** Budget of one portal call that shows no dialog. */
const CALL_MS = 5000;
/** How long an input waits for the person to answer the remote-desktop dialog before it answers `consent_pending`. */
const CONSENT_WAIT_MS = 15_000;
/** How long a capture waits for the person to answer the screenshot question. */
const CAPTURE_WAIT_MS = 15_000;
/** How long capabilities trust the last answer to "can the keyboard layout be known?" (and the clipboard reached?). */
const KEYMAP_KNOWN_MS = 5000;
/** How long a paste waits for the focused application to ask for the text after ctrl+v. */
const PASTE_FETCH_MS = 2000;
/** Time the application is given to insert what it fetched before the next key goes. */
const PASTE_SETTLE_MS = 100;

/** evdev codes of the pointer buttons (linux/input-event-codes.h). */
const BUTTON_CODES: Record<MouseButton, number> = { left: 0x110, right: 0x111, middle: 0x112 };
const RETURN = 0xff0d;
const TAB = 0xff09;
const CONTROL_L = 0xffe3;
const SHIFT_L = 0xffe1;
const INSERT = 0xff63;
/** Shift, Control, Caps Lock, Alt, Super and AltGr: held, they change what typed keys produce. */
const MODIFIERS = new Set([0xffe1, 0xffe2, 0xffe3, 0xffe4, 0xffe5, 0xffe9, 0xffea, 0xffeb, 0xffec, 0xfe03]);

/** One step of typing: keysyms pressed one after another, or a text pasted through the clipboard. */
type TypingStep = { keysyms: number[]; chars: number } | { paste: string; chars: number };

export interface WaylandBackendOptions {
  /** The session's environment (its bus, its settings); default this process's. */
  env?: NodeJS.ProcessEnv;
  /** Where the RemoteDesktop restore token is kept (RemoteDesktop version 2 and later). */
  tokens: TokenStore;
  log: (line: string) => void;
}

/** The Wayland backend: it always has forgetConsent (the screenshot permission, a refusal, the restore token). */
export interface WaylandScreenBackend extends ScreenBackend {
  forgetConsent(): Promise<void>;
}

export async function openWaylandBackend(options: WaylandBackendOptions): Promise<WaylandScreenBackend> {
  const env = options.env ?? process.env;
  let bus: PortalBus;
  try {
    bus = await PortalBus.connect(env['DBUS_SESSION_BUS_ADDRESS'], CALL_MS);
  } catch (error) {
    throw fail('capture_unavailable', `No session bus to reach the desktop portals: ${error instanceof Error ? error.message : String(error)}`, {
      reason: 'no_session_bus',
    });
  }
  const desktop = portalDesktop(env);
  const screenshots = new ScreenshotPortal(bus);
  const remote = new RemoteDesktopPortal(bus, options.tokens, options.log);
  const held = { buttons: new Set<MouseButton>(), keys: new Map<string, number>() };
  let cursor: { x: number; y: number } | undefined;
  let screen: ScreenRect | undefined;
  let closed = false;

  const open = (what: 'capture_unavailable' | 'input_unavailable'): void => {
    if (closed || bus.isClosed) throw fail(what, 'The Wayland screen backend is closed (or its session bus went away).', { reason: 'closed' });
  };

  /** The stream a screen point lies on, and the point in its coordinates. */
  const onStream = (streams: SharedStream[], x: number, y: number): { node: number; x: number; y: number } => {
    for (const s of streams) {
      if (x >= s.x && y >= s.y && x < s.x + s.width && y < s.y + s.height) return { node: s.node, x: x - s.x, y: y - s.y };
    }
    throw fail(
      'invalid_argument',
      `The point ${x},${y} is on no monitor the person shared (${streams.map((s) => `${s.x},${s.y} ${s.width}x${s.height}`).join('; ')}).`,
      {
        x,
        y,
        reason: 'not_shared',
      },
    );
  };

  const moveTo = async (x: number, y: number): Promise<void> => {
    open('input_unavailable');
    const live = await remote.session(CONSENT_WAIT_MS);
    const at = onStream(live.streams, x, y);
    await remote.notify('NotifyPointerMotionAbsolute', 'udd', [at.node, at.x, at.y], CALL_MS);
    cursor = { x, y };
  };
  const press = async (button: MouseButton, down: boolean): Promise<void> => {
    const code = BUTTON_CODES[button] as number | undefined;
    if (code === undefined) throw fail('invalid_argument', `Unknown button ${JSON.stringify(button)}: left, middle or right.`, { button });
    await remote.notify('NotifyPointerButton', 'iu', [code, down ? 1 : 0], CALL_MS);
    if (down) held.buttons.add(button);
    else held.buttons.delete(button);
  };
  const keysym = async (sym: number, down: boolean): Promise<void> => {
    await remote.notify('NotifyKeyboardKeysym', 'iu', [sym, down ? 1 : 0], CALL_MS);
  };

  /** Which of KDE's layouts is in use (its keyboard daemon), or undefined when nothing answers. */
  const kdeLayoutInUse = async (): Promise<number | undefined> => {
    const [index] = await bus.call('org.kde.keyboard', '/Layouts', 'org.kde.KeyboardLayouts', 'getLayout', '', [], 1000).catch(() => [undefined]);
    return typeof index === 'number' ? index : undefined;
  };
  const readKeymap = (): Promise<Keymap> => loadKeymap(env, kdeLayoutInUse);
  /**
   * Whether the layouts can be known, for capabilities, which every input asks first: read at most
   * every few seconds (each read runs gsettings three times and compiles the keymap). Typing itself
   * always reads the layout afresh, at the check and again at dispatch.
   */
  let keymapKnown: { at: number; known: Promise<boolean> } | undefined;
  const layoutKnown = (): Promise<boolean> => {
    if (keymapKnown === undefined || performance.now() - keymapKnown.at > KEYMAP_KNOWN_MS)
      keymapKnown = {
        at: performance.now(),
        known: readKeymap().then(
          () => true,
          () => false,
        ),
      };
    return keymapKnown.known;
  };

  /** The keymap, read afresh (the person may switch layouts); input_unavailable when it cannot be known. */
  const keymap = async (): Promise<Keymap> => {
    try {
      return await readKeymap();
    } catch (error) {
      if (error instanceof KeymapUnknown)
        throw fail('input_unavailable', `The keyboard layout cannot be known (${error.message}), so typed characters could be dropped; nothing was typed.`, {
          reason: 'keymap_unknown',
        });
      throw error;
    }
  };

  /** A key name as the keysym the current layout has; refused before anything is sent if the layout lacks it. */
  const keysymFor = (name: KeyName, map: Keymap): number => {
    const chars = [...name];
    const cp = chars.length === 1 ? (name.codePointAt(0) ?? 0) : -1;
    const named = chars.length === 1 && cp >= 0x20 ? map.typeable(cp)?.keysym : undefined;
    const sym = named ?? keysymOf(name);
    if (sym === null)
      throw fail('invalid_argument', `Unknown key ${JSON.stringify(name)}: one character or one of ${knownKeyNames().join(', ')}.`, { key: name });
    if (named === undefined && !map.hasKeysym(sym))
      throw fail('input_unavailable', `The keyboard layout ${map.layout} has no key ${JSON.stringify(name)}; nothing was sent.`, {
        reason: 'not_in_keymap',
        key: name,
      });
    return sym;
  };

  /**
   * The session's Xwayland clipboard, where this desktop shares it with Wayland apps: connected once
   * and kept; a failure is kept for a few seconds.
   */
  let clipboard: { at: number; open: Promise<XwaylandClipboard | ClipboardUnavailable> } | undefined;
  const reachClipboard = async (): Promise<XwaylandClipboard | ClipboardUnavailable> => {
    if (!desktop.sharesXwaylandClipboard)
      return new ClipboardUnavailable(`${desktop.kind === 'kde' ? 'KWin 5.27' : 'this desktop'} does not share an X11 client's clipboard with Wayland apps`);
    const kept = await clipboard?.open;
    if (kept instanceof XwaylandClipboard && !kept.isClosed) return kept;
    if (kept instanceof ClipboardUnavailable && clipboard !== undefined && performance.now() - clipboard.at < KEYMAP_KNOWN_MS) return kept;
    if (closed) return new ClipboardUnavailable('the backend is closed');
    clipboard = {
      at: performance.now(),
      open: XwaylandClipboard.open(env).catch((error: unknown) =>
        error instanceof ClipboardUnavailable ? error : new ClipboardUnavailable(error instanceof Error ? error.message : String(error)),
      ),
    };
    return clipboard.open;
  };
  /**
   * Whether text beyond the layout can be pasted, for capabilities, without connecting: on a session
   * whose Xwayland starts on demand, a connection would start it, and capabilities run before every
   * input. The connection is made when a text first needs it; a failure then is kept and said here.
   */
  const clipboardLikely = async (): Promise<boolean> => {
    if (!desktop.sharesXwaylandClipboard || (env['DISPLAY'] ?? '') === '') return false;
    if (clipboard === undefined) return true;
    return !((await clipboard.open) instanceof ClipboardUnavailable && performance.now() - clipboard.at < KEYMAP_KNOWN_MS);
  };

  /**
   * How `text` is typed on the current layout: what it has as keysyms; a line (between line breaks
   * and tabs, which are always keys) holding anything it lacks, pasted whole through the clipboard
   * where this desktop shares one. Refused whole, naming what cannot be typed, before anything is sent.
   */
  const planText = async (text: string): Promise<{ steps: TypingStep[]; map: Keymap }> => {
    const map = await keymap();
    const steps: TypingStep[] = [];
    const missing = new Set<string>();
    const unpasteable = new Set<string>();
    for (const piece of text.split(/([\n\t])/u)) {
      if (piece === '') continue;
      const syms: number[] = [];
      let lacking = false;
      for (const ch of piece) {
        const cp = ch.codePointAt(0) ?? 0;
        if (cp >= 0xd800 && cp <= 0xdfff) throw fail('invalid_argument', 'The text holds a lone surrogate, which is no character.', {});
        const sym = ch === '\n' ? RETURN : ch === '\t' ? TAB : map.typeable(cp)?.keysym;
        if (sym !== undefined) syms.push(sym);
        else {
          lacking = true;
          missing.add(ch);
          // Control characters are never pasted: they would arrive as something other than a key.
          if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) unpasteable.add(ch);
        }
      }
      if (!lacking) steps.push({ keysyms: syms, chars: [...piece].length });
      else for (const part of byteChunks(piece, MAX_OFFER_BYTES)) steps.push({ paste: part, chars: [...part].length });
    }
    if (missing.size === 0) return { steps, map };
    const reached = unpasteable.size > 0 ? undefined : await reachClipboard();
    if (reached instanceof XwaylandClipboard) return { steps, map };
    const refused = unpasteable.size > 0 ? unpasteable : missing;
    const shown = [...refused].slice(0, 20).map((c) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`);
    const why =
      reached === undefined
        ? 'control characters are typed only as keys the layout has'
        : `this desktop's portal drops such keys without a word, and the clipboard cannot carry them (${reached.message})`;
    throw fail(
      'input_unavailable',
      `The keyboard layout ${map.layout} cannot type ${shown.join(', ')}${refused.size > 20 ? ' …' : ''}: ${why}; nothing was typed.`,
      {
        reason: 'not_in_keymap',
        layout: map.layout,
        characters: shown,
        hint: 'set the text on the element with element_act set_value, or type only what the layout has',
      },
    );
  };

  /** Pastes one step's text: offered on the clipboard, ctrl+v (Shift+Insert where the layout has no v), seen fetched. */
  const paste = async (text: string, map: Keymap, typedBefore: number, total: number): Promise<void> => {
    const reached = await reachClipboard();
    const sent = { sent: typedBefore, of: total };
    if (!(reached instanceof XwaylandClipboard))
      throw fail('input_unavailable', `The clipboard cannot carry the text (${reached.message}); ${typedBefore} of ${total} characters were typed.`, {
        reason: 'clipboard_unavailable',
        ...sent,
      });
    let offer;
    try {
      offer = await reached.offer(text);
    } catch (error) {
      if (!(error instanceof ClipboardUnavailable)) throw error;
      throw fail('input_unavailable', `The clipboard did not take the text (${error.message}); ${typedBefore} of ${total} characters were typed.`, {
        reason: 'clipboard_unavailable',
        ...sent,
      });
    }
    const v = map.typeable(0x76)?.keysym;
    const chord = v === undefined ? [SHIFT_L, INSERT] : [CONTROL_L, v];
    for (const sym of chord) await keysym(sym, true);
    for (const sym of [...chord].reverse()) await keysym(sym, false);
    if (!(await offer.fetched(PASTE_FETCH_MS)))
      throw fail(
        'input_unavailable',
        `The focused application did not paste (${v === undefined ? 'Shift+Insert' : 'ctrl+v'} asked nothing of the clipboard in ${PASTE_FETCH_MS} ms); ${typedBefore} of ${total} characters were typed, the rest is on the clipboard.`,
        { reason: 'paste_not_taken', ...sent },
      );
    await new Promise((resolve) => setTimeout(resolve, PASTE_SETTLE_MS));
  };

  const monitors = async (): Promise<Monitor[]> => {
    const gnome = await gnomeMonitors(bus, CALL_MS).catch(() => undefined);
    if (gnome !== undefined && gnome.length > 0) return gnome;
    return screen === undefined ? [] : [{ name: 'screen', primary: true, scale: 1, ...screen }];
  };

  const backend: WaylandScreenBackend = {
    name: 'wayland',
    async capabilities(): Promise<ScreenCapabilities> {
      const [shotVersion, permission, rdVersion, devices, layoutIsKnown, mons, pasteable] = await Promise.all([
        screenshots.version(CALL_MS).catch(() => 0),
        screenshots.permission(CALL_MS),
        remote.version(CALL_MS).catch(() => 0),
        remote.deviceTypes(CALL_MS).catch(() => 0),
        layoutKnown(),
        monitors(),
        clipboardLikely(),
      ]);
      const state = remote.state();
      const captureDegradations = ['screen_only', 'no_window_positions'];
      // KDE 5.27 asks no one (and keeps nothing in the permission store): there is no consent to wait for.
      if (desktop.asksNoConsent) captureDegradations.push('no_consent_asked');
      else if (permission === 'unset') captureDegradations.push('consent_not_yet_given');
      if (permission === 'no') captureDegradations.push('consent_refused');
      if (shotVersion === 0) captureDegradations.push('no_screenshot_portal');
      const inputDegradations = ['no_window_positions', 'cursor_position_tracked'];
      if (rdVersion > 0 && rdVersion < 2) inputDegradations.push('consent_per_session');
      if (desktop.asksNoConsent) inputDegradations.push('no_consent_asked');
      else if (state === 'not_asked' || state === 'asking') inputDegradations.push('consent_not_yet_given');
      if (state === 'refused' || state === 'view_only' || state === 'stopped') inputDegradations.push(`consent_${state}`);
      inputDegradations.push(!layoutIsKnown ? 'keymap_unknown' : pasteable ? 'text_via_clipboard' : 'text_limited_to_layout');
      const inputAvailable = rdVersion > 0 && (devices & 3) === 3 && !['refused', 'view_only', 'stopped'].includes(state);
      if (rdVersion === 0) inputDegradations.push('no_remote_desktop_portal');
      // The suite runs GNOME's and KDE Plasma 5's portals (docs/wayland.md#kde): elsewhere the calls are not tested.
      if (!desktop.verified) {
        captureDegradations.push('desktop_not_verified');
        inputDegradations.push('desktop_not_verified');
      }
      const bounds = screen ?? boundsOf(mons);
      return {
        session: 'wayland',
        capture: { available: shotVersion > 0 && permission !== 'no', path: shotVersion > 0 ? SCREENSHOT_PATH : 'none', degradations: captureDegradations },
        input: { available: inputAvailable, path: rdVersion > 0 ? INPUT_PATH : 'none', degradations: inputDegradations },
        monitors: mons,
        screen: bounds,
      };
    },
    async capture(region?: ScreenRect): Promise<CapturedImage> {
      open('capture_unavailable');
      const image = await screenshots.capture(CAPTURE_WAIT_MS);
      screen = { x: 0, y: 0, width: image.width, height: image.height };
      if (region === undefined) return image;
      return { ...image, ...cropFrame(image, region), origin: { x: region.x, y: region.y } };
    },
    async move(x, y) {
      await moveTo(x, y);
    },
    async button(button, action) {
      open('input_unavailable');
      await press(button, action === 'down');
    },
    async click(x: number, y: number, button: MouseButton, count: number) {
      if (!Number.isInteger(count) || count < 1 || count > 3) throw fail('invalid_argument', `count must be 1, 2 or 3, not ${count}.`, { count });
      await moveTo(x, y);
      for (let i = 0; i < count; i++) {
        await press(button, true);
        await press(button, false);
      }
    },
    async scroll(x: number, y: number, direction: ScrollDirection, detents: number) {
      if (!Number.isInteger(detents) || detents < 1 || detents > 100)
        throw fail('invalid_argument', `detents must be an integer 1..100, not ${detents}.`, { detents });
      // Axis 0 is vertical, 1 horizontal; a positive step is down or right (the portal's and libinput's sense).
      // One call per detent, of as many steps as this desktop's portal needs for one (KDE 5.27: 10).
      const axis = direction === 'up' || direction === 'down' ? 0 : 1;
      const step = (direction === 'down' || direction === 'right' ? 1 : -1) * desktop.stepsPerDetent;
      await moveTo(x, y);
      for (let i = 0; i < detents; i++) await remote.notify('NotifyPointerAxisDiscrete', 'ui', [axis, step], CALL_MS);
    },
    async checkText(text: string) {
      await planText(text);
    },
    async typeText(text: string) {
      open('input_unavailable');
      // Only what this backend holds can be known here (Wayland shows no client the person's keys).
      const holding = [...held.keys.entries()].filter(([, sym]) => MODIFIERS.has(sym)).map(([name]) => name);
      if (holding.length > 0)
        throw fail(
          'input_unavailable',
          `${holding.join(', ')} is held (by an earlier key down), so typed text would not come out exactly; nothing was typed.`,
          {
            reason: 'modifier_held',
          },
        );
      // Level modifiers (Shift, AltGr) are pressed by the compositor for each keysym's level.
      const { steps, map } = await planText(text);
      const total = steps.reduce((n, step) => n + step.chars, 0);
      let typed = 0;
      for (const step of steps) {
        if ('paste' in step) await paste(step.paste, map, typed, total);
        else
          for (const sym of step.keysyms) {
            await keysym(sym, true);
            await keysym(sym, false);
          }
        typed += step.chars;
      }
    },
    async key(keys: readonly KeyName[], action: 'tap' | 'down' | 'up') {
      open('input_unavailable');
      if (keys.length === 0) throw fail('invalid_argument', 'No keys given.', {});
      const map = await keymap();
      const syms = keys.map((name) => [name, keysymFor(name, map)] as const);
      if (action !== 'up') {
        for (const [name, sym] of syms) {
          await keysym(sym, true);
          held.keys.set(name, sym);
        }
      }
      if (action !== 'down') {
        for (const [name, sym] of [...syms].reverse()) {
          await keysym(sym, false);
          held.keys.delete(name);
        }
      }
    },
    cursor() {
      if (cursor === undefined)
        return Promise.reject(
          fail('input_unavailable', 'Wayland tells no client where the pointer is; Overseer knows it only after it moved the pointer itself.', {
            reason: 'cursor_unknown',
          }),
        );
      return Promise.resolve({ ...cursor });
    },
    windows: (): Promise<NativeWindow[]> => Promise.resolve([]),
    focusedWindow: () => Promise.resolve(undefined),
    async forgetConsent() {
      remote.forget();
      await screenshots.forget(CALL_MS);
    },
    async close() {
      if (closed) return;
      try {
        // Only a running session has anything held; a closed backend never starts one (that would ask the person).
        if (remote.state() === 'granted') {
          for (const button of held.buttons) await press(button, false).catch(() => undefined);
          for (const sym of [...held.keys.values()].reverse()) await keysym(sym, false).catch(() => undefined);
        }
      } finally {
        closed = true;
        remote.close();
        const kept = await clipboard?.open;
        if (kept instanceof XwaylandClipboard) kept.close();
        await new Promise((r) => setTimeout(r, 50)); // let the session's Close leave before the connection does
        bus.disconnect();
      }
    },
  };
  return backend;
}

/** `text` in pieces of at most `max` UTF-8 bytes, cut between code points. */
function byteChunks(text: string, max: number): string[] {
  const chunks: string[] = [];
  let current = '';
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > max) {
      chunks.push(current);
      current = '';
      bytes = 0;
    }
    current += ch;
    bytes += size;
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

function boundsOf(monitors: Monitor[]): ScreenRect {
  if (monitors.length === 0) return { x: 0, y: 0, width: 0, height: 0 };
  const x = Math.min(...monitors.map((m) => m.x));
  const y = Math.min(...monitors.map((m) => m.y));
  return { x, y, width: Math.max(...monitors.map((m) => m.x + m.width)) - x, height: Math.max(...monitors.map((m) => m.y + m.height)) - y };
}
