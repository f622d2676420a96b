import type { KeyboardEvent } from 'react';
import { selectMatchIndex, selectMatches, selectSearch } from '../../store/selectors.js';
import { appStore, useApp } from '../../store/useApp.js';

/** Searches the tree by name, role or automation id; Enter jumps to the next match. */
export function TreeSearch() {
  const search = useApp(selectSearch);
  const matches = useApp(selectMatches);
  const index = useApp(selectMatchIndex);
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      appStore.getState().stepMatch(e.shiftKey ? -1 : 1);
    } else if (e.key === 'Escape') appStore.getState().setSearch('');
  };
  return (
    <div className="tree-search" role="search">
      <input
        type="search"
        data-testid="tree-search"
        aria-label="Search elements by name, role or automation id"
        placeholder="Search name, role, automation id…"
        value={search}
        onChange={(e) => appStore.getState().setSearch(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <span className="muted small" aria-live="polite" data-testid="tree-search-count">
        {search.trim() === '' ? '' : matches.length === 0 ? 'no match' : `${index + 1} of ${matches.length}`}
      </span>
      <button type="button" aria-label="Previous match" disabled={matches.length === 0} onClick={() => appStore.getState().stepMatch(-1)}>
        ↑
      </button>
      <button type="button" aria-label="Next match" disabled={matches.length === 0} onClick={() => appStore.getState().stepMatch(1)}>
        ↓
      </button>
    </div>
  );
}
