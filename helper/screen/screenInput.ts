// Pointer and keyboard input over the screen backend (docs/tools.md#screen-tier): refused
// excluded_target on the supervisor or an excluded app, and stale_screen when the input is bound to a
// capture whose pixels, window or monitors changed since (screenCapture.ts compares them); the element
// the tree names at the point or with the focus; then the dispatch: clicks, moves, drags, scrolls, keys
// and typing, keys a session rule covers sent one at a time while the focus stays where the rule reaches.
import { setTimeout as sleep } from 'node:timers/promises';
import { fail, type PointElement, type ScreenInputParams, type ScreenInputResult, type ScreenWindow, type WindowInfo } from '../../protocol/index.js';
import { checkKeyboard, typeIntoElement, type FocusAccess, type FocusStep } from './focusTyping.js';
import { windowAt } from './regions.js';
import type { ScreenBackend } from './screenBackend.js';
import type { ScreenCaptures } from './screenCapture.js';
import { REFUSALS, annotate, windowStack, type Annotated, type ScreenContext } from './screenContext.js';

/** A moment for the application to take a key before the focus is read again (rule-covered keys). */
const SCOPE_SETTLE_MS = 40;

const MODIFIER_KEYS: Record<string, string> = { ctrl: 'Control_L', shift: 'Shift_L', alt: 'Alt_L', super: 'Super_L' };

function backendKey(name: string): string {
  return MODIFIER_KEYS[name] ?? name;
}

function screenWindow(w: Annotated, window?: WindowInfo): ScreenWindow {
  const out: ScreenWindow = { handle: w.handle, title: w.title.slice(0, 5000), app: w.app.slice(0, 500), rect: w.rect };
  if (w.pid !== undefined) out.pid = w.pid;
  if (window !== undefined) out.window = window.window;
  return out;
}

/** The input of one helper: checked, bound to the captures it was planned on, and dispatched. */
export class ScreenInputs {
  constructor(
    /** The opened backend, or the typed failure of opening it. */
    private readonly backend: (code: 'capture_unavailable' | 'input_unavailable') => Promise<ScreenBackend>,
    private readonly context: ScreenContext,
    /** The lane of the call being served: its agent's, or the person's. */
    private readonly lane: () => string,
    private readonly captures: ScreenCaptures,
  ) {}

  /** The keyboard bound to one element, for element_act's values that are typed (focusTyping.ts). */
  readonly keyboard = {
    check: async (): Promise<void> => {
      await checkKeyboard(this.focusAccess);
    },
    type: (target: { pid: number; title: string; key: string; focus(): Promise<void> }, steps: readonly FocusStep[]): Promise<{ path: string }> =>
      typeIntoElement(this.focusAccess, target, steps),
  };

  private readonly focusAccess: FocusAccess = {
    backend: () => this.backend('input_unavailable'),
    stack: (backend) => windowStack(this.context, backend),
    focus: async (backend, windowsUnknown) => this.keyboardFocus(backend, windowsUnknown ? [] : await windowStack(this.context, backend), windowsUnknown),
    hasFocus: (key) => this.context.hasFocus?.(key) ?? Promise.resolve(undefined),
  };

  async input(p: ScreenInputParams, signal?: AbortSignal): Promise<ScreenInputResult> {
    const lane = this.lane();
    const backend = await this.backend('input_unavailable');
    const caps = await backend.capabilities();
    if (!caps.input.available) {
      // The person's refusal (a Wayland portal's consent) is the reason, where there is one.
      const refusal = caps.input.degradations.find((d) => REFUSALS.has(d));
      throw fail('input_unavailable', `pointer and keyboard input are not available here (${caps.input.path})`, {
        reason: refusal ?? 'backend',
        degradations: caps.input.degradations,
      });
    }
    const stack = await windowStack(this.context, backend);
    const keyboard = p.op === 'type' || p.op === 'key' || p.op === 'hold';
    const points = keyboard ? [] : p.point !== undefined ? [p.point, ...(p.to !== undefined ? [p.to] : [])] : [await backend.cursor()];
    const result: ScreenInputResult = { path: caps.input.path, dispatched: false };
    if (caps.input.degradations.includes('no_window_positions')) result.windows_unknown = true;
    for (const [i, pt] of points.entries()) {
      if (pt.x < caps.screen.x || pt.y < caps.screen.y || pt.x >= caps.screen.x + caps.screen.width || pt.y >= caps.screen.y + caps.screen.height)
        throw fail('invalid_argument', `the point ${pt.x},${pt.y} lies off the screen ${caps.screen.width}x${caps.screen.height}`, { point: pt });
      const under = windowAt(stack, pt.x, pt.y);
      if (under?.excludedWhy !== undefined)
        throw fail('excluded_target', `the point ${pt.x},${pt.y} lands on ${under.excludedWhy} ("${under.title}"): input there is never dispatched`, {
          point: pt,
          title: under.title,
        });
      if (i === 0 && under !== undefined) {
        result.window = screenWindow(under);
        if (p.check_only === true && under.pid !== undefined) {
          const at = await this.context.elementAt(under.pid, under.title, pt.x, pt.y).catch((): { window?: WindowInfo; element?: PointElement } => ({}));
          result.window = screenWindow(under, at.window);
          if (at.element !== undefined) result.element = at.element;
        }
      }
    }
    let focusHandle: string | undefined;
    if (keyboard) {
      let focused: Annotated | undefined;
      ({ handle: focusHandle, window: focused } = await this.keyboardFocus(backend, stack, result.windows_unknown === true));
      if (focused?.excludedWhy !== undefined)
        throw fail('excluded_target', `the keyboard focus is on ${focused.excludedWhy} ("${focused.title}"): keys are never sent there`, {
          title: focused.title,
        });
      if (p.focus !== undefined && p.focus !== (focusHandle ?? 'none'))
        throw fail('stale_screen', 'the keyboard focus moved to another window since the keys were checked; nothing was sent', { reason: 'focus_changed' });
      if (focused !== undefined) {
        result.window = screenWindow(focused);
        if (focused.pid !== undefined) {
          const f = await this.context.focused(focused.pid, focused.title).catch((): { window?: WindowInfo; element?: PointElement } => ({}));
          result.window = screenWindow(focused, f.window);
          if (f.element !== undefined) result.element = f.element;
          result.focus_password = f.element?.password === true;
        }
      }
    }
    if (p.bound !== undefined) result.changed = await this.captures.checkBound(backend, caps, stack, lane, p.bound, points);
    // Text the backend cannot type is refused before the person is asked, not after they approved it.
    if (p.op === 'type' && p.text !== undefined) await backend.checkText?.(p.text);
    if (p.check_only === true) return this.captures.card(lane, p, result, points, signal);
    await this.dispatch(backend, p, result.windows_unknown === true);
    const done: ScreenInputResult = { ...result, dispatched: true };
    if (p.after_picture === true) {
      const after = await this.captures.afterPicture(backend, lane);
      if (after !== undefined) done.after_picture = after;
    }
    return done;
  }

  /**
   * The window with the keyboard focus: the backend's answer, or where the backend cannot tell
   * (Wayland tells no program), the one window the accessibility tree says is active, which has no
   * known place on the screen (docs/wayland.md#windows-and-coordinates).
   */
  private async keyboardFocus(backend: ScreenBackend, stack: readonly Annotated[], windowsUnknown: boolean): Promise<{ handle?: string; window?: Annotated }> {
    const handle = await backend.focusedWindow();
    if (handle !== undefined || !windowsUnknown || this.context.activeWindow === undefined) {
      const window = stack.find((w) => w.handle === handle);
      return { ...(handle === undefined ? {} : { handle }), ...(window === undefined ? {} : { window }) };
    }
    const active = await this.context.activeWindow().catch(() => undefined);
    if (active === undefined) return {};
    return { handle: active.handle, window: await annotate(this.context, active) };
  }

  /**
   * Keys or text a session rule allowed (docs/supervision.md#rules-and-keys): one at a time, the
   * focus read again before each — after a moment for the application to take the last one — and
   * the rest refused, saying how far it got, the moment the focus is not where the rule reaches.
   */
  private async inScope(
    backend: ScreenBackend,
    windowsUnknown: boolean,
    stay: NonNullable<ScreenInputParams['stay']>,
    n: number,
    unit: 'keys' | 'characters',
    send: (i: number) => Promise<void>,
  ): Promise<void> {
    for (let i = 0; i < n; i++) {
      if (i > 0) await sleep(SCOPE_SETTLE_MS);
      const { handle: window } = await this.keyboardFocus(backend, [], windowsUnknown);
      const element = stay.element === undefined ? true : await (this.context.hasFocus?.(stay.element) ?? Promise.resolve(undefined));
      if (window !== stay.window || element !== true)
        throw fail(
          'stale_screen',
          `the keyboard focus ${window !== stay.window ? 'left the window' : element === false ? 'left the element' : 'could not be read on the element'} the session rule covers after ${i} of ${n} ${unit}; the rest was not sent`,
          { reason: 'left_rule_scope', sent: i, of: n, unit },
        );
      await send(i);
    }
  }

  private async dispatch(backend: ScreenBackend, p: ScreenInputParams, windowsUnknown: boolean): Promise<void> {
    const button = p.button ?? 'left';
    switch (p.op) {
      case 'click':
        return backend.click(p.point!.x, p.point!.y, button, p.count ?? 1);
      case 'move':
        return backend.move(p.point!.x, p.point!.y);
      case 'drag': {
        await backend.move(p.point!.x, p.point!.y);
        await backend.button(button, 'down');
        try {
          await backend.move(p.to!.x, p.to!.y);
        } finally {
          await backend.button(button, 'up');
        }
        return;
      }
      case 'down':
      case 'up':
        if (p.point !== undefined) await backend.move(p.point.x, p.point.y);
        return backend.button(button, p.op);
      case 'scroll':
        return backend.scroll(p.point!.x, p.point!.y, p.direction ?? 'down', p.amount ?? 3);
      case 'type': {
        if (p.stay === undefined) return backend.typeText(p.text ?? '');
        const chars = [...(p.text ?? '')];
        return this.inScope(backend, windowsUnknown, p.stay, chars.length, 'characters', (i) => backend.typeText(chars[i] ?? ''));
      }
      case 'key': {
        const combos = p.keys ?? [];
        const tap = (i: number): Promise<void> => {
          const combo = combos[i];
          return combo === undefined ? Promise.resolve() : backend.key([...combo.modifiers, ...(combo.key === null ? [] : [combo.key])].map(backendKey), 'tap');
        };
        if (p.stay !== undefined) return this.inScope(backend, windowsUnknown, p.stay, combos.length, 'keys', tap);
        for (let i = 0; i < combos.length; i++) await tap(i);
        return;
      }
      case 'hold': {
        const keys = (p.keys ?? []).flatMap((c) => [...c.modifiers, ...(c.key === null ? [] : [c.key])]).map(backendKey);
        await backend.key(keys, 'down');
        try {
          await sleep(p.duration_ms ?? 500);
        } finally {
          await backend.key(keys, 'up');
        }
        return;
      }
    }
  }
}
