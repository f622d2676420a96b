import { useStore } from 'zustand';
import { createAppStore, type AppState } from './store.js';

/** The page's one store. */
export const appStore = createAppStore();

/** Reads one value of the store in a component. */
export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(appStore, selector);
}
