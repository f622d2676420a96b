import type { StateCreator } from 'zustand';
import type { HeldApproval, PendingApproval, ReceiptEntry } from '../../protocol/index.js';
import { NOT_SENT, armKey, armsAt, notArmedWhy, rearmAll, see, selectionWhy, type SeenMap, type Sighting } from '../model/arming.js';
import { cardElementKey } from '../model/cardSubject.js';
import { cardConnectionName } from '../model/connectionWords.js';
import { isFinal, type DecisionRecord, type Verdict } from '../model/outcome.js';
import { mustReadToEnd, unreadWhy } from '../model/readToEnd.js';
import type { AppState } from './store.js';

/** A decided card at the end of the queue stays at least this long after it left, and as long as the pointer is over the queue. */
export const PLACEHOLDER_MS = 4000;
/** Cards that left the queue kept for their outcome lines (the recent decisions list shows the newest). */
export const MAX_RECORDS = 50;
/** How long a "Not decided: why" note stays. */
export const REFUSAL_MS = 6000;
/** A note about a control that has armed since goes this long after it armed: what it said is no longer so. */
export const RESOLVED_NOTE_MS = 1500;
/** Where notes go that were aimed at the queue rather than a card (a key with no card selected). */
export const QUEUE_NOTE = 'queue';

/**
 * One place in the queue (docs/supervision.md#where-the-next-card-appears): places are of one
 * height and never move. A place holds a live card, or what a card left behind (`left` set) —
 * first a placeholder (the card's frame, while the pointer that decided it may still rest on it),
 * then its one-line outcome (`line`) once the queue settles. A place showing an outcome line is
 * free: the next card that waits is shown there.
 */
export interface Slot {
  id: string;
  card: PendingApproval;
  /** Epoch ms the card left the queue; absent while it waits for a decision. */
  left?: number;
  /** A card that left, collapsed to its one-line outcome: its place is free for the next card. */
  line?: boolean;
}

/** A "Not decided: why" note, shown next to what was aimed at. */
export interface Refusal {
  text: string;
  at: number;
}

/** How a decision was aimed: by the pointer at a control (its arm key), or by a key at the selected card. */
export type Aim = { via: 'pointer'; key: string; what?: string } | { via: 'key' };

/** Pending approvals, the queue as shown (cards and placeholders), arming, and what became of each decision. */
export interface ApprovalsSlice {
  /** The supervisor's pending list, oldest first. */
  pending: PendingApproval[];
  /** Approved actions the pause holds. */
  held: HeldApproval[];
  /** The queue's places as shown, top to bottom: cards stay in their place; a new card takes the first free one. */
  slots: Slot[];
  /** How many places fit the queue whole (the view measures it); cards beyond wait, unseen, until a place is free. */
  capacity: number;
  /** Cards that left the queue, newest first. */
  records: DecisionRecord[];
  /** Where each control that decides was seen on screen, and since when (arming). */
  seen: SeenMap;
  /** While the pointer is over the queue, decided cards at its end stay. */
  pointerInQueue: boolean;
  /** False after a card left or arrived, until the queue placed it (`settle`). */
  settled: boolean;
  selectedApproval: string | undefined;
  /** When the selected card was selected (a key decides it only after the arming time). */
  selectedSince: number;
  /** The card whose deny reason is being typed. */
  denying: string | undefined;
  /** The card whose allow-for-session second step is open. */
  allowing: string | undefined;
  /** "Not decided" notes by approval id, `held:<id>`, or QUEUE_NOTE. */
  refusals: Readonly<Record<string, Refusal>>;
  /** Cards whose text has had its end on screen, by approval id (a remote_exec command is approved only then). */
  endsSeen: Readonly<Record<string, true>>;
  setPending(pending: PendingApproval[], now?: number): void;
  setHeld(held: HeldApproval[]): void;
  /** Selects a live card and its target element in the tree. */
  selectApproval(id: string | undefined, now?: number): void;
  moveApproval(delta: 1 | -1, now?: number): void;
  setDenying(id: string | undefined): void;
  setAllowing(id: string | undefined): void;
  /** Records where controls are on screen; `complete` drops what was not measured. */
  noteSeen(sightings: readonly Sighting[], now: number, complete?: boolean): void;
  /** Everything arms again (the page was hidden). */
  rearm(now: number): void;
  setPointerInQueue(inside: boolean): void;
  /** How many places fit; when fewer than before, the cards shown are gathered at the top (the person resized the window). */
  setCapacity(capacity: number, now?: number): void;
  /** Places what changed since the last settle: placeholders become one-line outcomes, and waiting cards take the free places. */
  settle(now?: number): void;
  /** Drops decided cards at the end of the queue once old enough while nobody points at the queue, and drops old notes. */
  tick(now: number): void;
  /** Why a decision on this card may not be made now; undefined when it may. */
  whyNot(id: string, aim: Aim, now: number): string | undefined;
  /** Why this card may not be approved now (whyNot, then: a command whose end was never on screen); undefined when it may. */
  whyNotApprove(id: string, aim: Aim, now: number): string | undefined;
  /** The ends of these cards' texts are on screen now: from now on they may be approved. */
  noteEndsSeen(ids: readonly string[]): void;
  /** Why a held action may not be cancelled now; undefined when it may. */
  whyNotCancel(id: string, now: number): string | undefined;
  /** Shows a "Not decided" note next to what was aimed at. */
  refuse(target: string, text: string, now: number): void;
  /** The card leaves a placeholder, its record starts, and the selection moves to the next card. */
  markDecided(id: string, verdict: Verdict, now: number, scope?: 'element' | 'app'): void;
  /** The supervisor accepted the decision, or refused it (then a card it still lists comes back). */
  decisionAnswered(id: string, answer: { ok: true } | { error: string }, now?: number): void;
  /** Attaches final receipts to the records they belong to. */
  noteFinals(entries: readonly ReceiptEntry[]): void;
}

const live = (slot: Slot | undefined): boolean => slot !== undefined && slot.left === undefined;

/**
 * The cards the supervisor lists that have no place yet, oldest first: they wait, unseen, for a
 * free place. A card decided here is not among them while its decision stands (the supervisor lists
 * it until the decision reaches it), even once another card took its place.
 */
export function waitingCards(pending: readonly PendingApproval[], slots: readonly Slot[], records: readonly DecisionRecord[]): PendingApproval[] {
  const placed = new Set(slots.map((x) => x.id));
  const decided = new Set(records.filter((r) => r.verdict !== undefined && typeof r.sent !== 'object').map((r) => r.approval_id));
  return pending.filter((p) => !placed.has(p.approval_id) && !decided.has(p.approval_id));
}

/**
 * The queue after a settle: every placeholder becomes its one-line outcome (nothing moves: places
 * keep their height), then each waiting card, oldest first, takes the first free place — one
 * showing an outcome line, or a new one at the end while fewer than `capacity` are used. A card
 * that finds none keeps waiting.
 */
export function settledSlots(slots: readonly Slot[], waiting: readonly PendingApproval[], capacity: number): Slot[] {
  const out: Slot[] = slots.map((x) => (live(x) || x.line === true ? x : { ...x, line: true }));
  for (const card of waiting) {
    const free = out.findIndex((x, i) => i < capacity && x.line === true);
    const slot = { id: card.approval_id, card };
    if (free >= 0) out[free] = slot;
    else if (out.length < capacity) out.push(slot);
    else break;
  }
  return out;
}

/** The card to decide next: the oldest live card shown, as the supervisor lists them. */
function oldestShown(pending: readonly PendingApproval[], slots: readonly Slot[], except?: string): string | undefined {
  const shown = new Set(slots.filter(live).map((x) => x.id));
  return pending.find((p) => p.approval_id !== except && shown.has(p.approval_id))?.approval_id;
}

/** The final receipt of an action among those received, newest first. */
function findFinal(receipts: readonly ReceiptEntry[], receiptId: string): ReceiptEntry | undefined {
  for (let i = receipts.length - 1; i >= 0; i--) {
    const r = receipts[i] as ReceiptEntry;
    if (r.receipt_id === receiptId && isFinal(r)) return r;
  }
  return undefined;
}

const withoutKey = <T>(map: Readonly<Record<string, T>>, ...keys: string[]): Readonly<Record<string, T>> => {
  if (!keys.some((k) => k in map)) return map;
  const next = { ...map };
  for (const k of keys) delete next[k];
  return next;
};

export const approvalsSlice: StateCreator<AppState, [], [], ApprovalsSlice> = (set, get) => ({
  pending: [],
  held: [],
  slots: [],
  capacity: Number.POSITIVE_INFINITY,
  records: [],
  seen: {},
  pointerInQueue: false,
  settled: true,
  selectedApproval: undefined,
  selectedSince: 0,
  denying: undefined,
  allowing: undefined,
  refusals: {},
  endsSeen: {},
  setPending: (pending, now = Date.now()) => {
    const s = get();
    const byId = new Map(pending.map((p) => [p.approval_id, p]));
    const slots: Slot[] = [];
    const left: DecisionRecord[] = [];
    let records = s.records;
    let seen = s.seen;
    for (const slot of s.slots) {
      const card = byId.get(slot.id);
      if (live(slot)) {
        if (card !== undefined) slots.push({ id: slot.id, card });
        else {
          // Removed by the supervisor (expired, braked, withdrawn, decided in another window): a placeholder says so.
          slots.push({ ...slot, left: now });
          left.push({ approval_id: slot.id, receipt_id: slot.card.receipt_id, card: slot.card, at: now, ...withFinal(s.receipts, slot.card.receipt_id) });
        }
      } else {
        const record = records.find((r) => r.approval_id === slot.id);
        if (card !== undefined && record !== undefined && typeof record.sent === 'object') {
          // The decision never reached the supervisor and it still waits: the card comes back, and arms again.
          slots.push({ id: slot.id, card });
          records = records.filter((r) => r !== record);
          seen = withoutKey(seen, armKey.card(slot.id));
        } else slots.push(slot);
      }
    }
    const arrived = waitingCards(pending, slots, records).length > waitingCards(s.pending, s.slots, s.records).length;
    if (left.length > 0) records = [...left.reverse(), ...records].slice(0, MAX_RECORDS);
    const denying = slots.some((x) => live(x) && x.id === s.denying) ? s.denying : undefined;
    const allowing = slots.some((x) => live(x) && x.id === s.allowing) ? s.allowing : undefined;
    // Forgotten once the supervisor no longer lists the card; a card whose decision failed to send keeps it.
    const endsSeen = Object.keys(s.endsSeen).some((id) => !byId.has(id))
      ? Object.fromEntries(Object.keys(s.endsSeen).flatMap((id) => (byId.has(id) ? [[id, true as const]] : [])))
      : s.endsSeen;
    set({ pending, slots, records, seen, denying, allowing, endsSeen, ...(arrived || left.length > 0 ? { settled: false } : {}) });
    if (!live(slots.find((x) => x.id === s.selectedApproval))) get().selectApproval(oldestShown(pending, slots), now);
  },
  setHeld: (held) => set({ held }),
  selectApproval: (id, now = Date.now()) => {
    const s = get();
    const slot = s.slots.find((x) => x.id === id);
    if (id !== undefined && !live(slot)) return;
    // Selecting the selected card again shows its target again, without restarting the key's arming.
    if (id !== s.selectedApproval)
      set({ selectedApproval: id, selectedSince: now, denying: s.denying === id ? id : undefined, allowing: s.allowing === id ? id : undefined });
    // A card on another desktop than the one shown names no element of this tree, whatever its key says.
    const key = slot === undefined || cardConnectionName(slot.card) !== s.connections.viewed ? undefined : cardElementKey(slot.card);
    if (key !== undefined) get().selectKey(key);
  },
  moveApproval: (delta, now = Date.now()) => {
    const { slots, selectedApproval } = get();
    const cards = slots.filter(live);
    if (cards.length === 0) return;
    const i = cards.findIndex((x) => x.id === selectedApproval);
    const next = i < 0 ? 0 : Math.min(Math.max(i + delta, 0), cards.length - 1);
    get().selectApproval(cards[next]?.id, now);
  },
  // A step that opened is a control that worked: a note that one did not is no longer true.
  setDenying: (denying) =>
    set({ denying, ...(denying !== undefined ? { allowing: undefined, refusals: withoutKey(get().refusals, denying, QUEUE_NOTE) } : {}) }),
  setAllowing: (allowing) =>
    set({ allowing, ...(allowing !== undefined ? { denying: undefined, refusals: withoutKey(get().refusals, allowing, QUEUE_NOTE) } : {}) }),
  noteSeen: (sightings, now, complete = false) => {
    const seen = see(get().seen, sightings, now, complete);
    if (seen !== get().seen) set({ seen });
  },
  rearm: (now) => set({ seen: rearmAll(get().seen, now), selectedSince: now }),
  setPointerInQueue: (pointerInQueue) => {
    if (pointerInQueue !== get().pointerInQueue) set({ pointerInQueue });
  },
  setCapacity: (capacity, now = Date.now()) => {
    const s = get();
    if (capacity === s.capacity) return;
    // Fewer places: the cards shown are gathered at the top, and those beyond wait again. They move, so they arm again.
    const slots = s.slots.some((x, i) => i >= capacity && live(x)) ? s.slots.filter(live).slice(0, capacity) : s.slots.slice(0, Math.max(capacity, 0));
    set({ capacity, slots, settled: false });
    if (!live(slots.find((x) => x.id === s.selectedApproval))) get().selectApproval(oldestShown(s.pending, slots), now);
  },
  settle: (now = Date.now()) => {
    const s = get();
    const slots = settledSlots(s.slots, waitingCards(s.pending, s.slots, s.records), s.capacity);
    set({ slots, settled: true });
    // A card shown into a queue with nothing selected is the one to decide next.
    if (!live(slots.find((x) => x.id === s.selectedApproval))) get().selectApproval(oldestShown(s.pending, slots), now);
  },
  tick: (now) => {
    const s = get();
    // Only at the end: dropping a decided card above a live one would move that card while someone reads it.
    const lastLive = s.slots.findLastIndex(live);
    const slots = s.pointerInQueue ? s.slots : s.slots.filter((x, i) => i < lastLive || x.left === undefined || now - x.left < PLACEHOLDER_MS);
    const stale = Object.entries(s.refusals).filter(([k, r]) => now - r.at >= REFUSAL_MS || noteResolved(s, k, now));
    if (slots.length === s.slots.length && stale.length === 0) return;
    set({ slots, refusals: withoutKey(s.refusals, ...stale.map(([k]) => k)) });
  },
  whyNot: (id, aim, now) => {
    const s = get();
    if (s.connection.state !== 'open') return NOT_SENT.offline;
    const slot = s.slots.find((x) => x.id === id);
    if (slot === undefined) return NOT_SENT.gone;
    if (!live(slot)) {
      const record = s.records.find((r) => r.approval_id === id);
      return record?.verdict !== undefined ? NOT_SENT.decidedHere : NOT_SENT.left;
    }
    if (aim.via === 'pointer') return notArmedWhy(s.seen[aim.key], now, aim.what);
    if (s.selectedApproval !== id) return NOT_SENT.selectFirst;
    return notArmedWhy(s.seen[armKey.card(id)], now) ?? selectionWhy(s.selectedSince, now);
  },
  whyNotApprove: (id, aim, now) => {
    const s = get();
    const why = s.whyNot(id, aim, now);
    if (why !== undefined) return why;
    const card = s.slots.find((x) => x.id === id)?.card;
    return card !== undefined && mustReadToEnd(card) && s.endsSeen[id] !== true ? unreadWhy(card) : undefined;
  },
  noteEndsSeen: (ids) => {
    const { endsSeen } = get();
    const fresh = ids.filter((id) => endsSeen[id] !== true);
    if (fresh.length > 0) set({ endsSeen: { ...endsSeen, ...Object.fromEntries(fresh.map((id) => [id, true as const])) } });
  },
  whyNotCancel: (id, now) => {
    const s = get();
    if (s.connection.state !== 'open') return NOT_SENT.cancelOffline;
    if (!s.held.some((h) => h.approval_id === id)) return NOT_SENT.cancelGone;
    const why = notArmedWhy(s.seen[armKey.held(id)], now, 'this row');
    return why === undefined ? undefined : NOT_SENT.asCancel(why);
  },
  refuse: (target, text, now) => set({ refusals: { ...get().refusals, [target]: { text, at: now } } }),
  markDecided: (id, verdict, now, scope) => {
    const s = get();
    const index = s.slots.findIndex((x) => x.id === id);
    const slot = s.slots[index];
    if (slot === undefined || !live(slot)) return;
    const slots = s.slots.map((x, i) => (i === index ? { ...x, left: now } : x));
    const record: DecisionRecord = {
      approval_id: id,
      receipt_id: slot.card.receipt_id,
      card: slot.card,
      at: now,
      verdict,
      ...(scope !== undefined ? { scope } : {}),
      sent: 'sending',
      ...withFinal(s.receipts, slot.card.receipt_id),
    };
    set({
      slots,
      settled: false,
      records: [record, ...s.records.filter((r) => r.approval_id !== id)].slice(0, MAX_RECORDS),
      seen: withoutKey(s.seen, armKey.card(id), armKey.confirm(id)),
      refusals: withoutKey(s.refusals, id, QUEUE_NOTE),
      denying: s.denying === id ? undefined : s.denying,
      allowing: s.allowing === id ? undefined : s.allowing,
    });
    if (s.selectedApproval === id || s.selectedApproval === undefined) get().selectApproval(oldestShown(s.pending, slots, id), now);
  },
  decisionAnswered: (id, answer, now = Date.now()) => {
    const s = get();
    const record = s.records.find((r) => r.approval_id === id);
    if (record === undefined) return;
    if ('ok' in answer) {
      set({ records: s.records.map((r) => (r === record ? { ...r, sent: 'accepted' } : r)) });
      return;
    }
    const card = s.pending.find((p) => p.approval_id === id);
    if (card === undefined || record.final !== undefined) {
      set({ records: s.records.map((r) => (r === record ? { ...r, sent: { error: answer.error } } : r)) });
      return;
    }
    // The supervisor still lists it: the card is back in its place, arming again, with the reason beside it.
    set({
      slots: s.slots.map((x) => (x.id === id ? { id, card } : x)),
      // Its place may have gone to another card meanwhile: then it waits for the next free one.
      settled: false,
      records: s.records.filter((r) => r !== record),
      seen: withoutKey(s.seen, armKey.card(id)),
      refusals: { ...s.refusals, [id]: { text: NOT_SENT.refused(answer.error), at: now } },
    });
  },
  noteFinals: (entries) => {
    const finals = new Map<string, ReceiptEntry>();
    for (const e of entries) if (isFinal(e) && e.receipt_id !== undefined) finals.set(e.receipt_id, e);
    if (finals.size === 0) return;
    const { records } = get();
    if (!records.some((r) => finals.has(r.receipt_id))) return;
    set({ records: records.map((r) => (finals.has(r.receipt_id) ? { ...r, final: finals.get(r.receipt_id) as ReceiptEntry } : r)) });
  },
});

/** Whether a "Not decided" note's control has been armed for RESOLVED_NOTE_MS: it works now, and the note would say otherwise. */
function noteResolved(s: ApprovalsSlice, key: string, now: number): boolean {
  const control = s.seen[key.includes(':') ? key : armKey.card(key)];
  const at = armsAt(control);
  const refusal = s.refusals[key];
  return at !== undefined && refusal !== undefined && at > refusal.at && now >= at + RESOLVED_NOTE_MS;
}

function withFinal(receipts: readonly ReceiptEntry[], receiptId: string): { final?: ReceiptEntry } {
  const final = findFinal(receipts, receiptId);
  return final === undefined ? {} : { final };
}
