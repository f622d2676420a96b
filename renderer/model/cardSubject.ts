import { cardSubject, unreachable, type Element, type PendingApproval } from '../../protocol/index.js';

/** How people read an element: `button "Send"`. */
export function elementLabel(t: Pick<Element, 'role' | 'name'>): string {
  return `${t.role}${t.name !== undefined && t.name !== '' ? ` "${t.name}"` : ''}`;
}

/** What a card acts on, as people read it: the element of an element_act, or where a screen input lands. */
export function subjectLabel(card: PendingApproval): string {
  return card.kind === 'element' ? elementLabel(card.target) : cardSubject(card).label;
}

/**
 * The pieces of a card's subject, for views that show the application's words apart from the
 * UI's own (untrusted text, docs/supervision.md#what-the-ui-shows): an element's role and name, or
 * where a screen input lands and the title of the window it lands in. Same content as `subjectLabel`.
 */
export interface SubjectParts {
  role?: string;
  name?: string;
  where?: string;
  title?: string;
}

/** The pieces of what a card acts on (see SubjectParts). */
export function subjectParts(card: PendingApproval): SubjectParts {
  switch (card.kind) {
    case 'element':
      return elementParts(card.target);
    case 'screen': {
      const screen = card.screen.detail;
      if (screen.element !== undefined) return elementParts(screen.element);
      return {
        where: screen.physical !== undefined ? `${screen.physical.x},${screen.physical.y}` : 'the focused window',
        ...(screen.window !== undefined ? { title: screen.window.title } : {}),
      };
    }
    case 'question':
    case 'handoff':
    case 'remote_exec':
    case 'add_connection':
    case 'agent_grant':
      return {};
    default:
      return unreachable(card);
  }
}

function elementParts(el: { role: string; name?: string | undefined }): SubjectParts {
  return { role: el.role, ...(el.name !== undefined ? { name: el.name } : {}) };
}

/** The application a card acts in ("" when nothing names it: a screen input on the bare desktop). */
export function subjectApp(card: PendingApproval): string {
  return cardSubject(card).app;
}

/** The accessibility window id (window_list) a card acts in, when one is known: the tree follows it. */
export function cardWindowId(card: PendingApproval): string | undefined {
  switch (card.kind) {
    case 'element':
      return card.window.window;
    case 'screen':
      return card.screen.detail.window?.window;
    case 'question':
    case 'handoff':
    case 'remote_exec':
    case 'add_connection':
    case 'agent_grant':
      return undefined;
    default:
      return unreachable(card);
  }
}

/** The tree key of the element a card acts on, when the tree names one. */
export function cardElementKey(card: PendingApproval): string | undefined {
  switch (card.kind) {
    case 'element':
      return card.target.key;
    case 'screen':
      return card.screen.detail.element?.key;
    case 'question':
    case 'handoff':
    case 'remote_exec':
    case 'add_connection':
    case 'agent_grant':
      return undefined;
    default:
      return unreachable(card);
  }
}
