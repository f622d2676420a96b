// The files the real applications open: the fixtures beside this module, and flat ODF documents
// written on demand. Flat ODF (.fods, .fodt) is one plain XML file that LibreOffice opens directly,
// without an import dialog (measured with LibreOffice 7.4).

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The fixtures folder beside this module. */
export const FIXTURES_DIR = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** The web form page ("Sign up"): a heading, a paragraph with "remember the milk", inputs, a select and a Submit button. */
export const FORM_PAGE = path.join(FIXTURES_DIR, 'form.html');

/** The form page as a URL for the browsers. */
export const FORM_PAGE_URL = `file://${FORM_PAGE}`;

/** The title of the form page (and so the start of its browser windows' titles). */
export const FORM_PAGE_TITLE = 'Sign up';

/** The PyQt6 form (window "Qt6 Form"). */
export const QT6_FORM = path.join(FIXTURES_DIR, 'qt6Form.py');

/** The Swing form's source (frame "Swing Form"), compiled at launch. */
export const SWING_FORM_SOURCE = path.join(FIXTURES_DIR, 'SwingForm.java');

const xml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const OFFICE_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"';

const stringCell = (s: string): string => `<table:table-cell office:value-type="string"><text:p>${xml(s)}</text:p></table:table-cell>`;
const numberCell = (n: number): string => `<table:table-cell office:value-type="float" office:value="${n}"><text:p>${n}</text:p></table:table-cell>`;

/** Options of writeSpreadsheet. */
export interface SpreadsheetOptions {
  /** Data rows under the header row (item1..itemN); default 10. */
  rows?: number;
  /** File name in `dir`; default "sheet.fods". */
  name?: string;
}

/**
 * Write a flat ODF spreadsheet: one sheet "Sheet1" with the header row Item / Qty / Price, then
 * `rows` rows: item<i>, i, i * 1.5. Returns its path.
 */
export function writeSpreadsheet(dir: string, options: SpreadsheetOptions = {}): string {
  const rows = options.rows ?? 10;
  const file = path.join(dir, options.name ?? 'sheet.fods');
  const body = [`<table:table-row>${['Item', 'Qty', 'Price'].map(stringCell).join('')}</table:table-row>`];
  for (let i = 1; i <= rows; i += 1) body.push(`<table:table-row>${stringCell(`item${i}`)}${numberCell(i)}${numberCell(i * 1.5)}</table:table-row>`);
  writeFileSync(
    file,
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<office:document ${OFFICE_NS} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">`,
      '<office:body><office:spreadsheet><table:table table:name="Sheet1">',
      ...body,
      '</table:table></office:spreadsheet></office:body></office:document>',
      '',
    ].join('\n'),
  );
  return file;
}

/** Write a flat ODF text document with one paragraph per string; `name` defaults to "doc.fodt". Returns its path. */
export function writeTextDocument(dir: string, paragraphs: readonly string[], name = 'doc.fodt'): string {
  const file = path.join(dir, name);
  writeFileSync(
    file,
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<office:document ${OFFICE_NS} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">`,
      '<office:body><office:text>',
      ...paragraphs.map((p) => `<text:p>${xml(p)}</text:p>`),
      '</office:text></office:body></office:document>',
      '',
    ].join('\n'),
  );
  return file;
}

/** Write a plain text file (FeatherPad's document); returns its path. */
export function writeTextFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}
