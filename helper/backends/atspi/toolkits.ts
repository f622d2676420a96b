/**
 * What each toolkit's AT-SPI provider does differently, as measured (docs/compatibility.md). One
 * profile per toolkit, chosen from the application's `Application.ToolkitName` and
 * `ToolkitVersion` (and, for LibreOffice, whose VCL plugins report the toolkit they draw with,
 * from the application's name). Everything toolkit-specific the backend does is asked of the
 * profile here, never decided by a toolkit name elsewhere.
 */

/** The toolkits the backend knows apart. */
export const TOOLKITS = ['gtk3', 'gtk4', 'gecko', 'chromium', 'libreoffice', 'qt5', 'qt6', 'java', 'other'] as const;
export type ToolkitKind = (typeof TOOLKITS)[number];

/** One toolkit's differences. */
export interface ToolkitProfile {
  kind: ToolkitKind;
  /** As the application reports it, e.g. "Qt 5.15.8". */
  label: string;
  /**
   * `clamps`: `Text.GetText(0, n)` past the end answers the whole text (GTK, Chromium, Java).
   * `exact`: it answers "" (Gecko, LibreOffice, Qt): the character count is read first.
   */
  textEnd: 'clamps' | 'exact';
  /**
   * Where a document's text lives. `leaves`: in elements of their own (labels, Chromium's static
   * text) whose names carry it; `containers`: in the Text of paragraphs, headings, cells, sections
   * (Gecko, LibreOffice), which is then read as their value.
   */
  contentText: 'leaves' | 'containers';
  /** GTK 4.8 never sets SHOWING: only VISIBLE tells whether an element shows. */
  showingUnreported: boolean;
  /**
   * Accessible ids: `toolkit` sets them (Gecko's DOM ids), `app` only where the application set one
   * (GTK: probed, see appCache.ts ID_PROBE), `unsupported`: the provider answers an error (Qt 5).
   */
  ids: 'toolkit' | 'app' | 'unsupported';
  /**
   * Whether `Properties.GetAll` may be asked. Qt 5.15 crashes on it (the application exits at once,
   * measured with FeatherPad): providers not known to answer it are asked property by property.
   */
  getAll: boolean;
  /**
   * `EditableText.SetTextContents` answers true but changes nothing in Gecko's web content (the
   * content lives in another process): set_value types instead there.
   */
  editableTextWorks: boolean;
  /** Roles whose Value interface means nothing (the Java ATK wrapper gives buttons and check boxes a Value of 0). */
  meaninglessValue: ReadonlySet<string>;
  /** The name a person sees, from what the provider reports (GTK 4.8 joins a button's name and label: "7 7"). */
  name(raw: string): { name: string; className?: string };
}

/** GTK 4.8 names an unlabelled widget by its type ("GtkMenuButton", "AdwGizmo"): that is its class, not a name a person reads. */
const GTK_TYPE_NAME = /^(Gtk|Adw|Gdk)[A-Z][A-Za-z0-9]*$/;

/** "7 7" → "7": a name made of one text twice, as GTK 4.8 joins a button's own name and its label's. */
export function undoubled(name: string): string {
  const half = (name.length - 1) / 2;
  if (!Number.isInteger(half) || half < 1 || name[half] !== ' ') return name;
  const first = name.slice(0, half);
  return first === name.slice(half + 1) && first.trim() === first ? first : name;
}

const plain = (raw: string): { name: string } => ({ name: raw });

function gtk4Name(raw: string): { name: string; className?: string } {
  if (GTK_TYPE_NAME.test(raw)) return { name: '', className: raw };
  return { name: undoubled(raw) };
}

const BASE: Omit<ToolkitProfile, 'kind' | 'label'> = {
  textEnd: 'exact',
  contentText: 'leaves',
  showingUnreported: false,
  ids: 'toolkit',
  getAll: false,
  editableTextWorks: true,
  meaninglessValue: new Set(),
  name: plain,
};

/** The profile of each kind; `other` reads cautiously (character counts first). */
const PROFILES: Record<ToolkitKind, Omit<ToolkitProfile, 'kind' | 'label'>> = {
  gtk3: { ...BASE, textEnd: 'clamps', ids: 'app', getAll: true },
  gtk4: { ...BASE, textEnd: 'clamps', ids: 'app', getAll: true, showingUnreported: true, name: gtk4Name },
  gecko: { ...BASE, contentText: 'containers', editableTextWorks: false },
  chromium: { ...BASE, textEnd: 'clamps' },
  libreoffice: {
    ...BASE,
    contentText: 'containers',
    ids: 'app',
    getAll: true,
    // A cell's Value is 0 for text, and setting it was not seen in the cell's text at once: cells are read and typed as text.
    meaninglessValue: new Set(['menu', 'menu_item', 'button', 'toggle_button', 'split_button', 'separator', 'tab_item', 'check_box', 'radio_button', 'cell']),
  },
  qt5: { ...BASE, ids: 'unsupported' },
  qt6: { ...BASE, ids: 'unsupported' },
  java: { ...BASE, textEnd: 'clamps', meaninglessValue: new Set(['button', 'toggle_button', 'check_box', 'radio_button', 'menu_item']) },
  other: { ...BASE },
};

/** Which toolkit an application uses, from what it reports of itself. */
export function toolkitKind(toolkitName: string, version: string, appName: string): ToolkitKind {
  const major = Number.parseInt(version, 10);
  // LibreOffice draws with GTK 3, Qt 5/6 or KF5 and reports that toolkit: its own provider is what counts.
  if (/^(soffice|libreoffice)/i.test(appName)) return 'libreoffice';
  switch (toolkitName.toLowerCase()) {
    case 'gtk':
      return major >= 4 ? 'gtk4' : 'gtk3';
    case 'gecko':
      return 'gecko';
    case 'chromium':
      return 'chromium';
    case 'qt':
      return major >= 6 ? 'qt6' : 'qt5';
    case 'j2se-access-bridge':
      return 'java';
    default:
      return 'other';
  }
}

/** The profile of an application. */
export function toolkitProfile(toolkitName: string, version: string, appName: string): ToolkitProfile {
  const kind = toolkitKind(toolkitName, version, appName);
  // What the application says of itself reaches cards and notes: letters, digits and a few marks, and short.
  const clean = (text: string): string => text.replace(/[^\p{L}\p{N} ._+-]/gu, '').slice(0, 32);
  const label = clean(toolkitName) === '' ? 'an unknown toolkit' : `${clean(toolkitName)}${clean(version) !== '' ? ` ${clean(version)}` : ''}`;
  return { kind, label, ...PROFILES[kind] };
}

/** Until the toolkit is known: read as cautiously as `other`. */
export const UNKNOWN_PROFILE: ToolkitProfile = { kind: 'other', label: 'an unknown toolkit', ...PROFILES.other };
