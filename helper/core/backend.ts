import type {
  Action,
  BackendName,
  ErrorCode,
  ElementField,
  ElementState,
  Exclusions,
  Pattern,
  PointElement,
  ProcessIdentity,
  Rect,
  Role,
  Truncation,
  WindowInfo,
} from '../../protocol/index.js';
import type { Deadline } from './deadline.js';

/** One element as a backend knows it, before budgets and shaping. */
export interface NativeNode {
  /** Native identity key (AT-SPI `atspi:<bus><path>`, UIA RuntimeId). */
  key: string;
  parent: string | undefined;
  /** Child keys in order; undefined while not read yet. */
  children: string[] | undefined;
  /** Child count the provider reports (may exceed children known); −1 when it does not say. */
  childCount: number;
  /** Set when `children` holds only part of them on purpose (a visible part, the first few): the walk reports it. */
  childrenCut?: ChildrenCut;
  role: Role;
  nativeRole?: string;
  name?: string;
  automationId?: string;
  className?: string;
  state?: ElementState;
  patterns: Pattern[];
  actions?: string[];
  rect?: Rect;
  value?: string;
  /** True once the detail pass ran for this node. */
  detailed: boolean;
  /** Fields the provider failed to answer. */
  unread: Set<ElementField>;
}

/** Why a node's children are only some of them, as the walk reports it (a cut is never silent). */
export interface ChildrenCut {
  cut: Truncation;
  /** A sentence for the answer's notes. */
  note: string;
}

/** A resolved top-level window with its identity. */
export interface WindowHandle {
  info: WindowInfo;
  /** Key of the window's root element. */
  rootKey: string;
  process: ProcessIdentity;
}

/**
 * What a detail pass reads: for answers `full` (rect, value, automation id, actions) or `answer`
 * (all but the rect), or only what matching needs (`ids`, `values`). Backends that read every
 * field at once may treat all four as `full`.
 */
export type DetailScope = 'full' | 'answer' | 'ids' | 'values';

/** A partly-read element tree of one window that the core walks under budgets. */
export interface TreeSource {
  readonly window: WindowHandle;
  node(key: string): NativeNode | undefined;
  /** Reads the children of these nodes (concurrently) where not yet known; reads at most `limit` new children of each. */
  expand(keys: readonly string[], deadline: Deadline, limit: number): Promise<void>;
  /** Reads details of these nodes concurrently, as much as `scope` asks (default `full`). */
  details(keys: readonly string[], deadline: Deadline, scope?: DetailScope): Promise<void>;
  /** Reads one node by key directly when it is not known yet (e.g. re-created by the provider). */
  fetch(key: string, deadline: Deadline): Promise<NativeNode | undefined>;
  /** Cuts and notes the source itself met (provider errors, timeouts). */
  readonly truncated: Set<Truncation>;
  readonly notes: string[];
  /** True when this read holds details of the node (read now, or still valid from before). */
  isDetailed(key: string): boolean;
  /** Called when the read is over; a source that met failures drops what it cached. */
  finish(): void;
}

/** What a dispatch did. */
export interface DispatchResult {
  /** What was called, e.g. `atspi:Action.DoAction(click)`. */
  path: string;
  /** False when the provider answered that it did not do it. */
  ok: boolean;
  /** True when nothing needed doing (already in the requested state); no call was made. */
  noop?: boolean;
  detail?: string;
}

/**
 * One accessibility backend (FlaUI's shape: one core, many backends). AT-SPI implements it now;
 * UIA and Win32 later. The core does budgets, selectors, shaping and receipts on top of it.
 */
export interface Backend {
  readonly name: BackendName;
  readonly capabilities: readonly string[];
  /** Why this backend was chosen instead of the preferred one (auto fallback). */
  readonly fallbackReason?: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  setExclusions(exclusions: Exclusions): void;
  /**
   * How long a window listing may take (default 3 s): a backend that must fetch a whole remote tree
   * for it (OSWorld's /accessibility) asks for more, within the supervisor's 10 s for window_list.
   */
  readonly listBudgetMs?: number;
  /** Visible titled top-level windows, front to back. */
  /** The windows agents may see; `withExcluded` adds the excluded ones too, for the helper's own checks (which window has the focus), never for an answer. */
  listWindows(deadline: Deadline, options?: { withExcluded?: boolean }): Promise<{ windows: WindowInfo[]; truncated: Truncation[]; notes: string[] }>;
  /** Resolves a window id (default: the foreground window); throws stale_window / not_found / excluded_target. */
  resolveWindow(id: string | undefined, deadline: Deadline): Promise<WindowHandle>;
  /** Opens a tree source over the window. */
  open(window: WindowHandle, deadline: Deadline): Promise<TreeSource>;
  /** Checks that a process identity still holds (throws stale_process). */
  checkProcess(process: ProcessIdentity, deadline: Deadline): Promise<void>;
  /** Reports processes whose trees changed (backends with events; others never call it). */
  onChange?(listener: (pids: number[]) => void): void;
  /** Calls the action on a node through its semantic pattern. Throws pattern_unsupported. */
  dispatch(source: TreeSource, node: NativeNode, action: Action, text: string | undefined, deadline: Deadline): Promise<DispatchResult>;
  /**
   * How the action will run when not through the node's own interface (set_value by typing), or
   * undefined when it will; throws the typed reason it cannot run at all. Asked before a person is.
   */
  plan?(source: TreeSource, node: NativeNode, action: Action, text: string | undefined): Promise<ActionPlan | undefined>;
  /** Gives the backend the keyboard (the screen tier), for the actions it types. */
  useTypist?(typist: Typist): void;
  /** Answers the screen tier's questions (backends that can; others leave cards without an element). */
  readonly probe?: TreeProbe;
  /** Reports windows that appeared or gained the focus (backends with events), for prefetching. */
  onWindowShown?(listener: (window: string) => void): void;
  /** Counters of the backend's calls to applications so far (for a read's profile); the peak restarts at each ask. */
  stats?(): BackendStats;
}

/** Running totals of a backend's work; a read's profile is the difference across it. */
export interface BackendStats {
  calls: number;
  callsByMember: Record<string, number>;
  /** Most calls in flight at once since the previous stats(). */
  maxInFlight: number;
  loadsReused: number;
  loadsReloaded: number;
  nodesLoaded: number;
  /** Milliseconds spent reading structures. */
  loadMs: number;
}

/** A window of the tree and an element in it, as the screen tier asks for them. */
export interface ProbeAnswer {
  window?: WindowInfo;
  element?: PointElement;
}

/** The screen tier's questions to the tree, in the windows of one process (the window system names the process). */
export interface TreeProbe {
  /** The deepest element at a physical screen point, in the window of `pid` titled `title` (or containing the point). */
  elementAt(pid: number, title: string, x: number, y: number, deadline: Deadline): Promise<ProbeAnswer>;
  /** The element with the keyboard focus in the windows of `pid`. */
  focused(pid: number, title: string, deadline: Deadline): Promise<ProbeAnswer>;
  /** Whether this element has the keyboard focus now, asked of the application itself (no cache); undefined when it cannot tell. */
  hasFocus?(key: string, deadline: Deadline): Promise<boolean | undefined>;
}

/** Which patterns can carry each action (any one suffices). */
export const ACTION_PATTERNS: Readonly<Record<Action, readonly Pattern[]>> = {
  invoke: ['invoke'],
  set_value: ['value', 'range_value'],
  toggle: ['toggle'],
  expand: ['expand_collapse'],
  collapse: ['expand_collapse'],
  select: ['selection_item'],
  scroll_into_view: ['scroll_item'],
  focus: ['focus'],
};

/** True when the node supports the action through one of its patterns. */
export function supports(node: NativeNode, action: Action): boolean {
  return ACTION_PATTERNS[action].some((p) => node.patterns.includes(p));
}

/** A failure during or after dispatch: whether the call was made, and the outcome to report. */
export class DispatchError extends Error {
  constructor(
    message: string,
    readonly callMade: boolean | 'unknown',
    readonly outcome: 'failed' | 'unknown',
    /** The error code the receipt names, when not the default (`timeout` for unknown, `internal` for failed). */
    readonly code?: ErrorCode,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** How an action will run where the element's own interface cannot carry it (docs/tools.md#set-value-by-typing). */
export interface ActionPlan {
  /** A sentence for the card and the receipt: what will be done, in order. */
  summary: string;
}

/** The element typed into: its process and window, its key, and how to give it the focus once its window has the keyboard. */
export interface TypingTarget {
  pid: number;
  title: string;
  key: string;
  /** Gives the element the focus through its own interface (AT-SPI Component.GrabFocus). */
  focus(): Promise<void>;
}

/** One step of typing: a key combination tapped (`Control_L`, `a`), or text typed exactly. */
export type TypeStep = { keys: readonly string[] } | { text: string };

/**
 * The keyboard, for actions that are typed (set_value where the provider's EditableText is missing
 * or does nothing): the screen tier, bound to one element of one application.
 */
export interface Typist {
  /** Throws the typed reason keys cannot be sent on this desktop (input_unavailable), before anyone is asked. */
  check(): Promise<void>;
  /**
   * Sends the steps to the element: brings its window to the keyboard first where the desktop
   * allows it, then focuses the element (`focus`), and sends each step only while that window has
   * the keyboard and the element the focus. Throws typed errors with `data.sent` (pieces sent
   * before) and `data.focused` (whether `focus` was called).
   */
  type(target: TypingTarget, steps: readonly TypeStep[]): Promise<{ path: string }>;
}
