import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CENTER_MIN,
  CENTER_PADDING,
  INITIAL_WIDTHS,
  KEY_STEP,
  PANES,
  SPLITTER_WIDTH,
  TREE_MIN,
  TREE_MIN_HEIGHT,
  fitWidths,
  keyWidth,
  maxWidth,
  parsePaneWidths,
  treeSplit,
} from './paneLayout.js';

/** What App.tsx leaves for the centre column and its two separators. */
const COLUMNS_REST = CENTER_MIN + 2 * SPLITTER_WIDTH;

/** The tree's width at a window width with these preferences, as the columns and the tree split fit them. */
function treeWidth(windowWidth: number, aside: 'detail' | 'screen' = 'detail', preferred = INITIAL_WIDTHS): number {
  const cols = fitWidths(windowWidth, COLUMNS_REST, preferred, ['sidebar', 'queue']);
  const center = windowWidth - cols.sidebar - cols.queue - 2 * SPLITTER_WIDTH - CENTER_PADDING;
  const split = treeSplit(center, 500, preferred, aside);
  return split.placement === 'below' ? center : center - SPLITTER_WIDTH - split.size;
}

describe('pane layout', () => {
  it('keeps every pane at its preferred width when the window has room', () => {
    assert.deepEqual(fitWidths(1024, COLUMNS_REST, INITIAL_WIDTHS, ['sidebar', 'queue']), { sidebar: 220, queue: 410 });
  });

  it('gives the tree at least 280 px from 1024 px up, whatever widths were chosen, the sidebar giving way first', () => {
    const widest = { ...INITIAL_WIDTHS, sidebar: PANES.sidebar.max, queue: PANES.queue.max, detail: PANES.detail.max, screen: PANES.screen.max };
    for (const w of [1024, 1100, 1280, 1600, 1920])
      for (const a of ['detail', 'screen'] as const)
        for (const preferred of [INITIAL_WIDTHS, widest]) assert.ok(treeWidth(w, a, preferred) >= TREE_MIN, `${w} ${a}: ${treeWidth(w, a, preferred)}`);
    const cols = fitWidths(1024, COLUMNS_REST, widest, ['sidebar', 'queue']);
    assert.equal(cols.sidebar, PANES.sidebar.min, 'the sidebar gave way first');
    assert.equal(cols.queue, 1024 - COLUMNS_REST - PANES.sidebar.min, 'then the queue');
  });

  it('puts the aside beside the tree where both fit, below it otherwise, the tree keeping its minimum either way', () => {
    const wide = treeSplit(700, 500, INITIAL_WIDTHS, 'detail');
    assert.deepEqual(wide, { placement: 'beside', pane: 'detail', size: 250, max: 700 - TREE_MIN - SPLITTER_WIDTH });
    const narrow = treeSplit(400, 500, INITIAL_WIDTHS, 'screen');
    assert.deepEqual(narrow, { placement: 'below', pane: 'below', size: 260, max: 500 - TREE_MIN_HEIGHT - SPLITTER_WIDTH });
    assert.equal(treeSplit(400, 200, INITIAL_WIDTHS, 'detail').size, PANES.below.min, 'a short box: the aside at its least height');
    assert.equal(
      treeSplit(700, 500, { ...INITIAL_WIDTHS, screen: 5000 }, 'screen').size,
      700 - TREE_MIN - SPLITTER_WIDTH,
      'a wide screen gives way to the tree',
    );
  });

  it('keeps a pane within its bounds whatever was asked', () => {
    assert.deepEqual(fitWidths(3000, COLUMNS_REST, { sidebar: 5, queue: 99_999 }, ['sidebar', 'queue']), {
      sidebar: PANES.sidebar.min,
      queue: PANES.queue.max,
    });
    assert.deepEqual(
      fitWidths(600, COLUMNS_REST, INITIAL_WIDTHS, ['sidebar', 'queue']),
      { sidebar: PANES.sidebar.min, queue: PANES.queue.min },
      'never below minimum',
    );
  });

  it('lets a pane grow only as far as leaves the others and the rest their room', () => {
    assert.equal(maxWidth('queue', 1280, COLUMNS_REST, 250), 1280 - COLUMNS_REST - 250);
    assert.equal(maxWidth('queue', 4000, COLUMNS_REST, 250), PANES.queue.max);
    assert.equal(maxWidth('queue', 800, COLUMNS_REST, 250), PANES.queue.min, 'never below the minimum, even when nothing is left');
  });

  it('moves a separator by arrow, page and Home/End keys, in the direction the pane grows', () => {
    assert.equal(keyWidth('ArrowRight', 250, 160, 400, 'ArrowRight'), 250 + KEY_STEP);
    assert.equal(keyWidth('ArrowLeft', 250, 160, 400, 'ArrowRight'), 250 - KEY_STEP);
    assert.equal(keyWidth('ArrowLeft', 390, 340, 600, 'ArrowLeft'), 390 + KEY_STEP, 'a pane right of its separator grows leftwards');
    assert.equal(keyWidth('PageDown', 250, 160, 400, 'ArrowRight'), 160);
    assert.equal(keyWidth('Home', 250, 160, 400, 'ArrowRight'), 160);
    assert.equal(keyWidth('End', 250, 160, 400, 'ArrowRight'), 400);
    assert.equal(keyWidth('ArrowRight', 395, 160, 400, 'ArrowRight'), 400, 'never past the maximum');
    assert.equal(keyWidth('ArrowUp', 260, 120, 400, 'ArrowUp'), 260 + KEY_STEP, 'a pane below its separator grows upwards');
    assert.equal(keyWidth('Enter', 250, 160, 400, 'ArrowRight'), undefined);
  });

  it('reads stored preferences, taking the initial or nearest width for anything missing, broken or out of bounds', () => {
    assert.deepEqual(parsePaneWidths(null), INITIAL_WIDTHS);
    assert.deepEqual(parsePaneWidths('not json'), INITIAL_WIDTHS);
    assert.deepEqual(parsePaneWidths('[1,2]'), INITIAL_WIDTHS);
    assert.deepEqual(parsePaneWidths(JSON.stringify({ sidebar: 300.4, queue: 'wide', detail: 1e9, screen: null, below: -3 })), {
      ...INITIAL_WIDTHS,
      sidebar: 300,
      detail: PANES.detail.max,
      below: PANES.below.min,
    });
  });
});
