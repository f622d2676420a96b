import { z } from 'zod';
import { ConnectionConfig, ConnectionRef, MAX_REMOTE_COMMAND } from './connections.js';
import { Element, WindowInfo } from './elements.js';
import { ScreenCard, ScreenInputDetail } from './screenRpc.js';
import { GrantRequestInfo } from './grants.js';
import { HandoffCardInfo, QuestionCardInfo } from './questionsHandoffs.js';
import { Action, AnyAction, Decision, ScreenAction } from './tools.js';
import { unreachable } from './unreachable.js';

/** What a card of the queue is: a changing action, an agent's question (`ask`) or its handoff (docs/supervision.md#questions-and-handoffs). */
export const QueueAction = z.union([AnyAction, z.enum(['ask', 'handoff', 'remote_exec', 'add_connection', 'agent_grant'])]);
export type QueueAction = z.infer<typeof QueueAction>;

/** What every card carries, whatever its kind. */
export const CardBase = z.object({
  approval_id: z.string(),
  receipt_id: z.string(),
  session: z.string(),
  agent: z.string(),
  /** Where the action lands: the connection's name, kind and host or URL (docs/connections.md). Absent on cards made before connections: local. */
  connection: ConnectionRef.optional(),
  /** Whether what the card would type or set is masked (a password field has it); false on cards that type nothing. */
  password: z.boolean(),
  /** Ancestors of an element_act's target root first, as `role "name"`; empty on every other kind. */
  ancestor_path: z.array(z.string()),
  created_at: z.string(),
  expires_at: z.string(),
  /** Words in the target or its ancestors that deserve a second look (Delete, Send, Pay…). */
  risk_hints: z.array(z.string()),
});
export type CardBase = z.infer<typeof CardBase>;

/** An element_act card: the element acted on, in its window. */
export const ElementApproval = CardBase.extend({
  kind: z.literal('element'),
  action: Action,
  /** The element acted on. */
  target: Element,
  /** The window the element is in. */
  window: WindowInfo,
  /** set_value text; masked for password fields. */
  text: z.string().optional(),
  /** The element's current value, for the diff (absent for password fields). */
  current_value: z.string().optional(),
  /** How the action will run where the element's own interface cannot carry it (set_value by typing: focus, select, type). */
  method: z.string().max(300).optional(),
  /** The target window as it looked when checked, the element outlined (planned false). */
  picture: ScreenCard.optional(),
  /** Why the card has no picture, when the screen tier could not take one. */
  picture_unavailable: z.string().max(500).optional(),
});
export type ElementApproval = z.infer<typeof ElementApproval>;

/** A screen input card: the picture it was planned on with the input marked, and where it lands. */
export const ScreenApproval = CardBase.extend({
  kind: z.literal('screen'),
  action: ScreenAction,
  /** The picture with the input marked, and where it lands. */
  screen: z.object({ card: ScreenCard, detail: ScreenInputDetail }),
  /** type_text text; masked while a password field has the focus. */
  text: z.string().optional(),
});
export type ScreenApproval = z.infer<typeof ScreenApproval>;

/** An agent's question (`ask`): no rule decides it; the person answers or declines. */
export const QuestionApproval = CardBase.extend({
  kind: z.literal('question'),
  action: z.literal('ask'),
  /** The question and the choices offered. */
  question: QuestionCardInfo,
});
export type QuestionApproval = z.infer<typeof QuestionApproval>;

/** An agent's handoff: the desktop is the person's until they give control back. */
export const HandoffApproval = CardBase.extend({
  kind: z.literal('handoff'),
  action: z.literal('handoff'),
  /** Why the agent hands over, and how many inputs wait meanwhile. */
  handoff: HandoffCardInfo,
});
export type HandoffApproval = z.infer<typeof HandoffApproval>;

/** A remote_exec card: a shell command on the agent's connection. */
export const RemoteExecApproval = CardBase.extend({
  kind: z.literal('remote_exec'),
  action: z.literal('remote_exec'),
  /** The exact command, and how long it may run. */
  remote_exec: z.object({ command: z.string().max(MAX_REMOTE_COMMAND), timeout_ms: z.number().int() }),
});
export type RemoteExecApproval = z.infer<typeof RemoteExecApproval>;

/** An add_connection card: a new connection the agent asks for. */
export const AddConnectionApproval = CardBase.extend({
  kind: z.literal('add_connection'),
  action: z.literal('add_connection'),
  /** Exactly the entry that would be added (enabled once approved). */
  add_connection: ConnectionConfig,
});
export type AddConnectionApproval = z.infer<typeof AddConnectionApproval>;

/**
 * An agent_grant card (docs/agents.md#consent): a client asks for its own credential. Everything it
 * says of itself is its claim, shown as untrusted text; approved, it becomes the identity `grant_name`.
 */
export const AgentGrantApproval = CardBase.extend({
  kind: z.literal('agent_grant'),
  action: z.literal('agent_grant'),
  /** Who asks (in its own words) and what it asks for. */
  agent_grant: GrantRequestInfo,
});
export type AgentGrantApproval = z.infer<typeof AgentGrantApproval>;

/**
 * A card waiting for a person's decision, tagged by `kind` (docs/supervision.md#card-kinds): a view
 * switches on it with an `unreachable` default, so a new kind is a compile error wherever it must be shown.
 */
export const PendingApproval = z.discriminatedUnion('kind', [
  ElementApproval,
  ScreenApproval,
  QuestionApproval,
  HandoffApproval,
  RemoteExecApproval,
  AddConnectionApproval,
  AgentGrantApproval,
]);
export type PendingApproval = z.infer<typeof PendingApproval>;

/** An Omit per member of a union (a plain Omit merges a tagged union's members into one object, losing the tag). */
export type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The kinds of card. */
export type CardKind = PendingApproval['kind'];

/** Whether a card is a question or a handoff (no rule ever decides those; approve and deny do not apply). */
export function isQuestionOrHandoffCard(item: PendingApproval): item is QuestionApproval | HandoffApproval {
  switch (item.kind) {
    case 'question':
    case 'handoff':
      return true;
    case 'element':
    case 'screen':
    case 'remote_exec':
    case 'add_connection':
    case 'agent_grant':
      return false;
    default:
      return unreachable(item);
  }
}

/** A card a person approves or denies: every kind but a question or a handoff. */
export type ApprovableCard = Exclude<PendingApproval, QuestionApproval | HandoffApproval>;

/** The text a card would type or set (element_act's set_value, a screen input's type_text), as the card shows it; undefined for kinds that type nothing. */
export function cardText(item: PendingApproval): string | undefined {
  switch (item.kind) {
    case 'element':
    case 'screen':
      return item.text;
    case 'question':
    case 'handoff':
    case 'remote_exec':
    case 'add_connection':
    case 'agent_grant':
      return undefined;
    default:
      return unreachable(item);
  }
}

/** The hint on a card whose focus or scroll may select what it lands on (docs/supervision.md#view-only-actions). */
export const SELECTION_HINT = 'Selection follows focus';
/** The hint on a card a session rule would have allowed but cannot cover: keys or text that can leave what it names. */
export const RULE_SCOPE_HINT = 'Beyond the session rule';

/** What a card acts on, for rules, notifications and lists: its application, a key rules bind to, and a label people read (empty for a card that acts on no element). */
export function cardSubject(item: PendingApproval): { app: string; key: string; label: string } {
  switch (item.kind) {
    case 'screen': {
      const screen = item.screen.detail;
      const el = screen.element;
      const where = screen.physical !== undefined ? `${screen.physical.x},${screen.physical.y}` : 'the focused window';
      return {
        app: screen.window?.app ?? '',
        key: el?.key ?? screen.window?.handle ?? 'screen',
        label:
          el !== undefined
            ? `${el.role}${el.name !== undefined ? ` "${el.name}"` : ''}`
            : `${where}${screen.window !== undefined ? ` in "${screen.window.title}"` : ''}`,
      };
    }
    case 'element': {
      const t = item.target;
      return { app: item.window.app, key: t.key, label: `${t.role}${t.name !== undefined ? ` "${t.name}"` : ''}` };
    }
    case 'question':
    case 'handoff':
    case 'remote_exec':
    case 'add_connection':
    case 'agent_grant':
      return { app: '', key: '', label: '' };
    default:
      return unreachable(item);
  }
}

/** The fields the pause adds to a card it holds: the decision that approved it, and since when it waits for Resume. */
const HeldFields = { decision: Decision, held_since: z.string() };
const held = <S extends z.ZodRawShape>(card: z.ZodObject<S>) => card.extend(HeldFields);

/** An action a person (or a rule) approved that the pause holds: it runs on resume unless cancelled. */
export const HeldApproval = z.discriminatedUnion('kind', [
  held(ElementApproval),
  held(ScreenApproval),
  held(QuestionApproval),
  held(HandoffApproval),
  held(RemoteExecApproval),
  held(AddConnectionApproval),
  held(AgentGrantApproval),
]);
export type HeldApproval = z.infer<typeof HeldApproval>;

/**
 * A card as the UI channel carries it: the same card with its pictures' pixels left out (an empty
 * `picture`); the UI asks for them by id (`card_picture`) when it shows the card.
 */
export function withoutPictures<T extends PendingApproval>(item: T): T {
  switch (item.kind) {
    case 'element':
      return item.picture !== undefined ? { ...item, picture: { ...item.picture, picture: '' } } : { ...item };
    case 'screen': {
      const card = item.screen.card;
      return {
        ...item,
        screen: { ...item.screen, card: { ...card, picture: '', ...(card.crop !== undefined ? { crop: { ...card.crop, picture: '' } } : {}) } },
      };
    }
    case 'question':
    case 'handoff':
    case 'remote_exec':
    case 'add_connection':
    case 'agent_grant':
      return { ...item };
    default:
      return unreachable(item);
  }
}

/** Which of a card's pictures: the element card's window (`picture`), a screen card's screenshot (`screen`) or its full-resolution crop (`crop`). */
export const CardPictureKind = z.enum(['picture', 'screen', 'crop']);
export type CardPictureKind = z.infer<typeof CardPictureKind>;

/** The pixels of one of a card's pictures, or undefined when it has none of that kind. */
export function cardPicture(item: PendingApproval, which: CardPictureKind): string | undefined {
  switch (item.kind) {
    case 'element':
      return which === 'picture' ? item.picture?.picture : undefined;
    case 'screen':
      return which === 'screen' ? item.screen.card.picture : which === 'crop' ? item.screen.card.crop?.picture : undefined;
    case 'question':
    case 'handoff':
    case 'remote_exec':
    case 'add_connection':
    case 'agent_grant':
      return undefined;
    default:
      return unreachable(item);
  }
}
