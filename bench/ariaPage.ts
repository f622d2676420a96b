// The Chromium page of the read bench: a local file with hundreds of ARIA widgets (tree, grid,
// listbox, buttons, checkboxes, textboxes), so the bench has a large real tree from a toolkit
// that is not GTK. Deterministic: the same counts give the same page.

/** How many of each widget the page holds. */
export interface AriaPageCounts {
  treeGroups: number;
  treeItemsPerGroup: number;
  gridRows: number;
  gridColumns: number;
  options: number;
  buttons: number;
  checkboxes: number;
  textboxes: number;
}

/** The bench's page: about 1,300 widgets, a few thousand accessibles in Chromium. */
export const ARIA_PAGE_COUNTS: AriaPageCounts = {
  treeGroups: 20,
  treeItemsPerGroup: 10,
  gridRows: 40,
  gridColumns: 8,
  options: 150,
  buttons: 200,
  checkboxes: 200,
  textboxes: 150,
};

/** The window title Chromium shows for the page (its frame's accessible name starts with it). */
export const ARIA_PAGE_TITLE = 'Overseer ARIA bench';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** The HTML of the page. */
export function ariaPageHtml(c: AriaPageCounts = ARIA_PAGE_COUNTS): string {
  const tree = range(c.treeGroups)
    .map(
      (g) =>
        `<li role="treeitem" aria-expanded="true" aria-level="1">Group ${g}<ul role="group">${range(c.treeItemsPerGroup)
          .map((i) => `<li role="treeitem" aria-level="2" aria-selected="false">Item ${g}.${i}</li>`)
          .join('')}</ul></li>`,
    )
    .join('');
  const header = `<div role="row">${range(c.gridColumns)
    .map((col) => `<span role="columnheader">Col ${col}</span>`)
    .join('')}</div>`;
  const rows = range(c.gridRows)
    .map(
      (r) =>
        `<div role="row" aria-rowindex="${r + 2}">${range(c.gridColumns)
          .map((col) => `<span role="gridcell" tabindex="-1">r${r}c${col}</span>`)
          .join('')}</div>`,
    )
    .join('');
  const options = range(c.options)
    .map((i) => `<div role="option" aria-selected="${i === 0 ? 'true' : 'false'}">Option ${i}</div>`)
    .join('');
  const buttons = range(c.buttons)
    .map((i) => `<button type="button">Button ${i}</button>`)
    .join('');
  const checkboxes = range(c.checkboxes)
    .map((i) => `<label><input type="checkbox"${i % 3 === 0 ? ' checked' : ''}> Check ${i}</label>`)
    .join('');
  const textboxes = range(c.textboxes)
    .map((i) => `<label>Field ${i} <input type="text" value="value ${i}"></label>`)
    .join('');
  return [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${ARIA_PAGE_TITLE}</title></head><body>`,
    '<main>',
    `<h1>${ARIA_PAGE_TITLE}</h1>`,
    `<ul role="tree" aria-label="Tree">${tree}</ul>`,
    `<div role="grid" aria-label="Grid" aria-rowcount="${c.gridRows + 1}">${header}${rows}</div>`,
    `<div role="listbox" aria-label="List" tabindex="0">${options}</div>`,
    `<section aria-label="Buttons">${buttons}</section>`,
    `<section aria-label="Checkboxes">${checkboxes}</section>`,
    `<section aria-label="Text boxes">${textboxes}</section>`,
    '</main></body></html>',
    '',
  ].join('\n');
}
