import { createContext, useContext } from 'react';

/**
 * Where "show all" of an untrusted text leads. Inside a compact queue card (a place of fixed
 * height, docs/supervision.md#cards-that-fit) the text cannot grow in place, so "show all" opens
 * the card's details (a function); there (`'whole'`) texts are shown whole from the start;
 * elsewhere (undefined) it expands where it is.
 */
export const ShowAllContext = createContext<(() => void) | 'whole' | undefined>(undefined);

export const useShowAll = () => useContext(ShowAllContext);
