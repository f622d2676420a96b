// A fresh LibreOffice user installation for the real-applications kit (-env:UserInstallation), so
// soffice never touches ~/.config, seeded with where its windows open.
//
// Measured with LibreOffice 7.4 (gtk3): a fresh profile showed no first-start wizard and no tip of
// the day, but opened Calc and Writer maximized on a 1280x800 screen, and openbox ignores resizes
// of a maximized window; each document kind's window attributes (x,y,width,height;state;...),
// state 1 being "normal", make it open there instead.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The configuration factory of each document kind the kit opens. */
const FACTORIES: Record<string, string> = {
  '.fods': 'com.sun.star.sheet.SpreadsheetDocument',
  '.ods': 'com.sun.star.sheet.SpreadsheetDocument',
  '.fodt': 'com.sun.star.text.TextDocument',
  '.odt': 'com.sun.star.text.TextDocument',
};

/** Write `dir`/user/registrymodifications.xcu: each file's document kind opens at its place (same order as files). */
export function writeOfficeProfile(
  dir: string,
  files: readonly string[],
  places: readonly ({ x: number; y: number; width: number; height: number } | undefined)[],
): void {
  const items: string[] = [];
  for (const [i, file] of files.entries()) {
    const factory = FACTORIES[path.extname(file).toLowerCase()];
    const place = places[i];
    if (factory === undefined || place === undefined) continue;
    const attributes = `${place.x},${place.y},${place.width},${place.height};1;0,0,0,0;`;
    items.push(
      `<item oor:path="/org.openoffice.Setup/Office/Factories/org.openoffice.Setup:Factory['${factory}']"><prop oor:name="ooSetupFactoryWindowAttributes" oor:op="fuse"><value>${attributes}</value></prop></item>`,
    );
  }
  mkdirSync(path.join(dir, 'user'), { recursive: true });
  writeFileSync(
    path.join(dir, 'user', 'registrymodifications.xcu'),
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
      ...items,
      '</oor:items>',
      '',
    ].join('\n'),
  );
}
