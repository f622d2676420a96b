// Tests pick cards out of the queue by kind: a card's fields are its kind's (protocol/approvalCard.ts).
import type { CardKind, PendingApproval } from '../../protocol/index.js';

/** A card of one kind. */
export type CardOf<K extends CardKind> = Extract<PendingApproval, { kind: K }>;

/** Whether a card is of this kind and passes the test, the card narrowed to its kind. */
export function cardIs<K extends CardKind>(kind: K, test: (card: CardOf<K>) => boolean = () => true): (card: PendingApproval) => card is CardOf<K> {
  return (card): card is CardOf<K> => card.kind === kind && test(card as CardOf<K>);
}

/** The card narrowed to its kind; throws, naming the kind it has, when it is another (a test failure). */
export function expectCard<K extends CardKind>(card: PendingApproval | undefined, kind: K): CardOf<K> {
  if (card?.kind !== kind) throw new Error(`expected a ${kind} card, got ${card === undefined ? 'none' : card.kind}`);
  return card as CardOf<K>;
}
