import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import {
  selectChosenWindow,
  selectCollapsed,
  selectMatches,
  selectNodes,
  selectPending,
  selectSelectedKey,
  selectTreeAside,
  selectTruncatedBy,
  selectViewedConnection,
  selectWindows,
} from '../../store/selectors.js';
import { cardElementKey } from '../../model/cardSubject.js';
import { cardConnectionName } from '../../model/connectionWords.js';
import { displayValue, visibleNodes, type TreeNode } from '../../model/tree.js';
import { appStore, useApp } from '../../store/useApp.js';
import { ElementDetail } from './ElementDetail.js';
import { FirstRun } from './FirstRun.js';
import { ScreenView } from './ScreenView.js';
import { TreeSearch } from './TreeSearch.js';
import { TreeStatusLine } from './TreeStatusLine.js';
import { usePaneWidths, useSize } from '../shell/paneWidths.js';
import { Splitter } from '../shell/Splitter.js';
import { SPLITTER_WIDTH, treeSplit } from '../../model/paneLayout.js';
import { UntrustedText } from '../shell/UntrustedText.js';
import { ViewedDesktop } from './ConnectionSwitcher.js';
import './windows.css';

const ROW_HEIGHT = 24;

/** The chosen window's element tree (virtualized), its search box and, beside it on a resizable split, the selected element's details or the screen. */
export function TreeView() {
  const chosen = useApp(selectChosenWindow);
  const windows = useApp(selectWindows);
  const truncatedBy = useApp(selectTruncatedBy);
  const nodes = useApp(selectNodes);
  const aside = useApp(selectTreeAside);
  const info = windows.find((w) => w.window === chosen);
  const splitRef = useRef<HTMLDivElement>(null);
  const box = useSize(splitRef, { width: 0, height: 0 });
  // The aside (details or the screen) gives way to keep the tree at its minimum, and goes below the tree where both do not fit side by side.
  const split = treeSplit(box.width, box.height, usePaneWidths(), aside);
  const beside = split.placement === 'beside';
  const layout = beside
    ? { gridTemplateColumns: `minmax(0, 1fr) ${SPLITTER_WIDTH}px ${split.size}px` }
    : { gridTemplateColumns: 'minmax(0, 1fr)', gridTemplateRows: `minmax(0, 1fr) ${SPLITTER_WIDTH}px ${split.size}px` };
  return (
    <div className="tree-view">
      <div className="tree-head">
        <h2 id="tree-heading">{chosen === undefined ? 'Element tree' : <UntrustedText text={info?.title ?? chosen} />}</h2>
        {info !== undefined && (
          <span className="muted small">
            <UntrustedText text={info.app} /> · pid {info.pid} · {nodes.length} elements
          </span>
        )}
        {truncatedBy.length > 0 && <span className="tag tag-warn">partial: {truncatedBy.join(', ')}</span>}
        <ViewedDesktop />
        <TreeStatusLine />
      </div>
      <TreeSearch />
      <div ref={splitRef} className="tree-split" data-placement={split.placement} style={layout}>
        {chosen === undefined ? <FirstRun /> : nodes.length === 0 ? <p className="muted tree-empty">Reading the window…</p> : <ElementTree />}
        <Splitter
          pane={split.pane}
          label={aside === 'detail' ? 'Element details' : 'Screen'}
          controls="pane-tree-aside"
          width={split.size}
          max={split.max}
          grows={beside ? 'ArrowLeft' : 'ArrowUp'}
          others={{}}
          testId="splitter-tree"
        />
        <div id="pane-tree-aside" className="tree-aside">
          <AsideSwitch />
          {aside === 'screen' ? <ScreenView /> : <ElementDetail />}
        </div>
      </div>
    </div>
  );
}

/** Chooses what sits beside the tree: the selected element's fields, or the screen with it outlined. */
function AsideSwitch() {
  const aside = useApp(selectTreeAside);
  return (
    <div className="aside-switch" role="group" aria-label="Beside the tree">
      {(['detail', 'screen'] as const).map((a) => (
        <button key={a} type="button" data-testid={`aside-${a}`} aria-pressed={aside === a} onClick={() => appStore.getState().setTreeAside(a)}>
          {a === 'detail' ? 'Details' : 'Screen'}
        </button>
      ))}
    </div>
  );
}

function ElementTree() {
  const nodes = useApp(selectNodes);
  const collapsed = useApp(selectCollapsed);
  const selectedKey = useApp(selectSelectedKey);
  const matches = useApp(selectMatches);
  const pending = useApp(selectPending);
  const rows = useMemo(() => visibleNodes(nodes, collapsed), [nodes, collapsed]);
  const matchSet = useMemo(() => new Set(matches), [matches]);
  const viewed = useApp(selectViewedConnection);
  // Only cards on the desktop this tree shows mark its elements.
  const targets = useMemo(
    () =>
      new Set(
        pending
          .filter((c) => cardConnectionName(c) === viewed)
          .map(cardElementKey)
          .filter((k) => k !== undefined),
      ),
    [pending, viewed],
  );
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 20 });
  const selectedIndex = useMemo(() => rows.findIndex((r) => r.key === selectedKey), [rows, selectedKey]);

  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, virtualizer]);

  // Time from a tree's arrival to its first painted frame (read by npm run bench).
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      if (performance.getEntriesByName('overseer:tree-received').length > 0) performance.measure('overseer:tree-render', 'overseer:tree-received');
    });
    return () => cancelAnimationFrame(frame);
  }, [nodes]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const s = appStore.getState();
    const row = rows[selectedIndex];
    const go = (i: number) => {
      const r = rows[Math.min(Math.max(i, 0), rows.length - 1)];
      if (r !== undefined) s.selectKey(r.key);
    };
    if (e.key === 'ArrowDown') go(selectedIndex + 1);
    else if (e.key === 'ArrowUp') go(selectedIndex - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(rows.length - 1);
    else if (e.key === 'ArrowRight' && row !== undefined && row.childCount > 0 && collapsed.has(row.key)) s.toggleCollapsed(row.key);
    else if (e.key === 'ArrowLeft' && row !== undefined) {
      if (row.childCount > 0 && !collapsed.has(row.key)) s.toggleCollapsed(row.key);
      else if (row.parent !== undefined) s.selectKey(row.parent);
    } else return;
    e.preventDefault();
    e.stopPropagation();
  };

  return (
    <div
      ref={scrollRef}
      className="tree-scroll"
      role="tree"
      aria-labelledby="tree-heading"
      aria-activedescendant={selectedKey !== undefined && selectedIndex >= 0 ? rowId(selectedIndex) : undefined}
      tabIndex={0}
      data-testid="element-tree"
      data-keys="own"
      onKeyDown={onKeyDown}
    >
      <div className="tree-inner" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const node = rows[item.index] as TreeNode;
          return (
            <TreeRow
              key={node.key}
              id={rowId(item.index)}
              node={node}
              top={item.start}
              expanded={!collapsed.has(node.key)}
              selected={node.key === selectedKey}
              match={matchSet.has(node.key)}
              target={targets.has(node.key)}
            />
          );
        })}
      </div>
    </div>
  );
}

const rowId = (i: number) => `tree-row-${i}`;

interface RowProps {
  id: string;
  node: TreeNode;
  top: number;
  expanded: boolean;
  selected: boolean;
  match: boolean;
  target: boolean;
}

function TreeRow({ id, node, top, expanded, selected, match, target }: RowProps) {
  const e = node.element;
  const value = displayValue(e);
  const states = Object.entries(e.state)
    .filter(([k, v]) => v !== false && k !== 'enabled' && k !== 'focusable')
    .map(([k, v]) => (v === true ? k : `${k}=${String(v)}`));
  if (e.state.enabled === false) states.unshift('disabled');
  const cls = ['tree-row', selected ? 'selected' : '', match ? 'match' : '', target ? 'target' : ''].filter(Boolean).join(' ');
  return (
    <div
      id={id}
      className={cls}
      role="treeitem"
      aria-level={node.depth + 1}
      aria-expanded={node.childCount > 0 ? expanded : undefined}
      aria-selected={selected}
      data-testid="tree-row"
      data-key={node.key}
      style={{ transform: `translateY(${top}px)`, paddingLeft: 4 + node.depth * 14 }}
      onClick={() => appStore.getState().selectKey(node.key)}
    >
      {node.childCount > 0 ? (
        <button
          type="button"
          className="twisty"
          tabIndex={-1}
          aria-label={expanded ? 'Collapse' : 'Expand'}
          onClick={(ev) => {
            ev.stopPropagation();
            appStore.getState().toggleCollapsed(node.key);
          }}
        >
          {expanded ? '▾' : '▸'}
        </button>
      ) : (
        <span className="twisty" aria-hidden="true" />
      )}
      <span className="role">{e.role}</span>
      {e.name !== undefined && e.name !== '' && (
        <span className="name">
          “<UntrustedText text={e.name} expandable={false} />”
        </span>
      )}
      {value !== undefined && value !== '' && (
        <span className="value">
          =<UntrustedText text={value} expandable={false} />
        </span>
      )}
      {e.automation_id !== undefined && (
        <span className="aid">
          #<UntrustedText text={e.automation_id} expandable={false} />
        </span>
      )}
      {states.length > 0 && <span className="states">{`{${states.join(' ')}}`}</span>}
      {target && <span className="tag tag-alert">target</span>}
    </div>
  );
}
