import type { StateCreator } from 'zustand';
import type { ScreenView } from '../../protocol/index.js';
import type { CaptureFailure } from '../model/screenCapture.js';
import type { AppState } from './store.js';

/** What sits beside the tree: the selected element's fields, or the Screen view. */
export type TreeAside = 'detail' | 'screen';

/** The Screen view: what it shows, the capture under way, and the last failure. */
export interface ScreenState {
  /** The window captured (undefined: the whole screen). */
  window: string | undefined;
  /** The latest capture asked for; an answer to an earlier one is dropped. */
  request: number;
  capturing: boolean;
  /** The latest picture, and which window it shows. */
  shown?: { window: string | undefined; view: ScreenView };
  /** Why the latest capture failed (cleared by the next picture). */
  error?: CaptureFailure;
}

/** The Screen view beside the tree. */
export interface ScreenSlice {
  treeAside: TreeAside;
  screen: ScreenState;
  setTreeAside(aside: TreeAside): void;
  /** Starts a capture of `window` (undefined: the whole screen); returns its request number for the answer. */
  screenRequested(window: string | undefined): number;
  /** The answer to a capture: a picture or a typed failure. Answers to superseded requests are dropped. */
  screenAnswered(request: number, answer: { view: ScreenView } | { error: CaptureFailure }): void;
}

export const screenSlice: StateCreator<AppState, [], [], ScreenSlice> = (set, get) => ({
  treeAside: 'detail',
  screen: { window: undefined, request: 0, capturing: false },
  setTreeAside: (treeAside) => set({ treeAside }),
  screenRequested: (window) => {
    const request = get().screen.request + 1;
    set({ screen: { ...get().screen, window, request, capturing: true } });
    return request;
  },
  screenAnswered: (request, answer) => {
    const s = get().screen;
    if (request !== s.request) return;
    if ('view' in answer) set({ screen: { window: s.window, request, capturing: false, shown: { window: s.window, view: answer.view } } });
    else set({ screen: { ...s, capturing: false, error: answer.error } });
  },
});
