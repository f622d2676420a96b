/** Opens a card's details: every field, and its pictures full size (a dialog; the card stays where it is). */
export function DetailsButton({ onOpen }: { onOpen: () => void }) {
  return (
    <button
      type="button"
      className="card-details-button"
      data-testid="card-details-button"
      aria-haspopup="dialog"
      title="Every field of this card, and its pictures full size"
      onClick={(e) => {
        e.stopPropagation();
        onOpen();
      }}
    >
      Details
    </button>
  );
}
