/** A control's caption without its mnemonic markers: `&Save` → `Save`, `Fish && Chips` → `Fish & Chips`. */
export function stripMnemonic(text: string): string {
  return text.replace(/&(&?)/g, (_m, amp: string) => amp);
}

/** A label's text as the name of the control it labels (`Name:` → `Name`). */
export function labelName(text: string): string {
  return stripMnemonic(text)
    .trim()
    .replace(/[:：]$/, '')
    .trim();
}

/** A FILETIME (100 ns since 1601) as the decimal string process identity compares. */
export function filetime(bytes: Buffer): string {
  return bytes.readBigUInt64LE(0).toString();
}

/** The application name of an executable path: `C:\\Windows\\notepad.exe` → `notepad`. */
export function appName(imagePath: string): string {
  const base = imagePath.split(/[\\/]/).pop() ?? imagePath;
  return base.replace(/\.exe$/i, '');
}
