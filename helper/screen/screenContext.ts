// What the screen tier asks of the accessibility side and of the exclusion rules (ScreenContext),
// and what capture and input both read through it: the window stack with application names and
// exclusion verdicts, and the visible parts of excluded windows that are never shown.
import type { PointElement, WindowInfo } from '../../protocol/index.js';
import { intersect, visibleParts } from './regions.js';
import type { NativeWindow, ScreenBackend, ScreenRect } from './screenBackend.js';

/** What the screen service asks of the accessibility side and of the exclusion rules. */
export interface ScreenContext {
  /** The accessibility window of a window_list id (throws stale_window, excluded_target, …). */
  resolveWindow(id: string): Promise<WindowInfo>;
  /** The application's name as the tree names the process, if it does. */
  appName(pid: number): Promise<string | undefined>;
  /** The deepest element at a physical point in the window of `pid` titled `title`. */
  elementAt(pid: number, title: string, x: number, y: number): Promise<{ window?: WindowInfo; element?: PointElement }>;
  /** The element with the keyboard focus in the windows of `pid`. */
  focused(pid: number, title: string): Promise<{ window?: WindowInfo; element?: PointElement }>;
  /** Why this window must never be shown or driven (the supervisor, an excluded app), or undefined. */
  excluded(window: NativeWindow, app: string | undefined): string | undefined;
  accessibility(): { backend: string; available: boolean };
  /** Whether an element has the keyboard focus now, asked of its application (undefined: cannot tell, which stops rule-covered keys). */
  hasFocus?(key: string): Promise<boolean | undefined>;
  /**
   * The window the accessibility tree says is active (the one with the keyboard focus), for desktops
   * whose screen backend cannot tell; its rect is unknown (zero). Undefined when none or several are.
   */
  activeWindow?(): Promise<NativeWindow | undefined>;
  /** The agent the call being served is made for (its $scope), or undefined for the person's and the supervisor's own calls. */
  agent(): string | undefined;
}

/** A window of the stack with its application's name and, when it must never be shown or driven, why. */
export type Annotated = NativeWindow & { app: string; excludedWhy?: string };

/** Degradations that say the person refused (docs/wayland.md#consent): the reason of a refused capture or input. */
export const REFUSALS = new Set(['consent_refused', 'consent_view_only', 'consent_stopped']);

/** One window with its application's name (the tree's, else its last class) and the exclusion verdict. */
export async function annotate(context: ScreenContext, w: NativeWindow): Promise<Annotated> {
  const app = (w.pid !== undefined ? await context.appName(w.pid).catch(() => undefined) : undefined) ?? w.classes.at(-1) ?? '';
  const why = context.excluded(w, app);
  return why === undefined ? { ...w, app } : { ...w, app, excludedWhy: why };
}

/** The backend's window stack, annotated. */
export async function windowStack(context: ScreenContext, backend: ScreenBackend): Promise<Annotated[]> {
  const windows = await backend.windows();
  return Promise.all(windows.map((w) => annotate(context, w)));
}

/** Visible parts of excluded windows inside `region`. */
export function excludedParts(stack: readonly Annotated[], region: ScreenRect): ScreenRect[] {
  return stack.flatMap((w, i) => (w.excludedWhy === undefined ? [] : visibleParts(stack, i).flatMap((p) => intersect(p, region) ?? [])));
}
