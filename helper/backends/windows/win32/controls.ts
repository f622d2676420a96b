import type { ElementState, Pattern, Role } from '../../../../protocol/index.js';

// Window styles and control styles (WinUser.h). Only what the Win32 tier reads.
export const WS = { DISABLED: 0x0800_0000, VISIBLE: 0x1000_0000, TABSTOP: 0x0001_0000, CHILD: 0x4000_0000, POPUP: 0x8000_0000 } as const;
export const BS_TYPEMASK = 0x0f;
export const BS = {
  PUSHBUTTON: 0,
  DEFPUSHBUTTON: 1,
  CHECKBOX: 2,
  AUTOCHECKBOX: 3,
  RADIOBUTTON: 4,
  THREESTATE: 5,
  AUTO3STATE: 6,
  GROUPBOX: 7,
  USERBUTTON: 8,
  AUTORADIOBUTTON: 9,
  PUSHBOX: 0xa,
  OWNERDRAW: 0xb,
  SPLITBUTTON: 0xc,
  DEFSPLITBUTTON: 0xd,
  COMMANDLINK: 0xe,
  DEFCOMMANDLINK: 0xf,
} as const;
export const ES = { MULTILINE: 0x4, PASSWORD: 0x20, READONLY: 0x800 } as const;
export const CBS_TYPEMASK = 0x3;
export const CBS = { SIMPLE: 1, DROPDOWN: 2, DROPDOWNLIST: 3 } as const;
export const LBS = { MULTIPLESEL: 0x8, EXTENDEDSEL: 0x800 } as const;

/** How the Win32 tier treats a control: which message contract (if any) it may drive it with. */
export type ControlKind = 'push' | 'check' | 'radio' | 'group' | 'edit' | 'combo' | 'list' | 'static' | 'dialog' | 'other';

export interface Classified {
  kind: ControlKind;
  role: Role;
  /** Patterns the Win32 tier can honour through a known message contract; nothing else is offered. */
  patterns: Pattern[];
  state: ElementState;
}

/** Other common classes, by their role only: read, never driven. */
const READ_ONLY_CLASSES: Record<string, Role> = {
  msctls_trackbar32: 'slider',
  msctls_progress32: 'progress_bar',
  msctls_updown32: 'spinner',
  msctls_statusbar32: 'status_bar',
  systabcontrol32: 'tab',
  toolbarwindow32: 'tool_bar',
  syslistview32: 'list',
  systreeview32: 'tree',
  sysheader32: 'header',
  syslink: 'link',
  scrollbar: 'scroll_bar',
  tooltips_class32: 'tool_tip',
};

/** Maps a window class and its styles onto the shared vocabulary and the tier's message contracts. */
export function classify(className: string, style: number): Classified {
  const cls = className.toLowerCase();
  const enabled = (style & WS.DISABLED) === 0;
  const state: ElementState = { enabled, offscreen: (style & WS.VISIBLE) === 0, focusable: (style & WS.TABSTOP) !== 0 };
  if (cls === 'button') {
    const type = style & BS_TYPEMASK;
    switch (type) {
      case BS.CHECKBOX:
      case BS.AUTOCHECKBOX:
      case BS.THREESTATE:
      case BS.AUTO3STATE:
        return { kind: 'check', role: 'check_box', patterns: ['toggle'], state: { ...state, checkable: true } };
      case BS.RADIOBUTTON:
      case BS.AUTORADIOBUTTON:
        return { kind: 'radio', role: 'radio_button', patterns: ['selection_item'], state: { ...state, checkable: true, selectable: true } };
      case BS.GROUPBOX:
        return { kind: 'group', role: 'group', patterns: [], state: { enabled, offscreen: state.offscreen } };
      case BS.SPLITBUTTON:
      case BS.DEFSPLITBUTTON:
        return { kind: 'push', role: 'split_button', patterns: ['invoke'], state };
      case BS.OWNERDRAW:
      case BS.USERBUTTON:
      default:
        return { kind: 'push', role: 'button', patterns: ['invoke'], state };
    }
  }
  if (cls === 'edit' || cls.startsWith('richedit')) {
    const readOnly = (style & ES.READONLY) !== 0;
    const password = (style & ES.PASSWORD) !== 0;
    return {
      kind: 'edit',
      role: 'edit',
      patterns: readOnly ? [] : ['value'],
      state: { ...state, editable: !readOnly, read_only: readOnly, multi_line: (style & ES.MULTILINE) !== 0, ...(password ? { password: true } : {}) },
    };
  }
  if (cls === 'combobox' || cls === 'comboboxex32')
    return { kind: 'combo', role: 'combo_box', patterns: [], state: { ...state, expandable: (style & CBS_TYPEMASK) !== CBS.SIMPLE } };
  if (cls === 'listbox' || cls === 'combolbox')
    return { kind: 'list', role: 'list', patterns: [], state: { ...state, multiselectable: (style & (LBS.MULTIPLESEL | LBS.EXTENDEDSEL)) !== 0 } };
  if (cls === 'static') return { kind: 'static', role: 'label', patterns: [], state: { enabled, offscreen: state.offscreen } };
  if (cls === '#32770') return { kind: 'dialog', role: 'dialog', patterns: [], state };
  const role = READ_ONLY_CLASSES[cls];
  return { kind: 'other', role: role ?? 'pane', patterns: [], state };
}

/** BM_GETCHECK's answer as a state. */
export function checkedState(check: number): boolean | 'mixed' {
  return check === 1 ? true : check === 2 ? 'mixed' : false;
}
