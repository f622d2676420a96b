/**
 * How many places the approval queue has, and how tall each is
 * (docs/supervision.md#where-the-next-card-appears): places are all of one height, so a card shown
 * in a freed place moves nothing, and as many as fit the queue's column whole, so a card is whole on
 * screen wherever it appears. Pure: the view measures the room.
 */

/** The least height of a place: a compact card's words, a picture worth seeing and its buttons (at 1024×700 two fit). */
export const PLACE_MIN = 260;
/** The tallest a place grows on a tall screen: past this a card has room to spare, and another place is more use. */
export const PLACE_MAX = 420;
/** The space between two places. */
export const PLACE_GAP = 8;

/** The places for `room` CSS px of column below the queue's head: how many, and how tall each is. */
export function queuePlaces(room: number): { capacity: number; height: number } {
  if (!Number.isFinite(room) || room < PLACE_MIN) return { capacity: 1, height: PLACE_MIN };
  const fits = Math.floor((room + PLACE_GAP) / (PLACE_MIN + PLACE_GAP));
  // As many as fit, and more when the places would be taller than they need be.
  const capacity = Math.max(fits, Math.ceil((room + PLACE_GAP) / (PLACE_MAX + PLACE_GAP)));
  return { capacity, height: Math.floor((room + PLACE_GAP) / capacity - PLACE_GAP) };
}
