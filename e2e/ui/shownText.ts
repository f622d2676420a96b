// Reading what an UntrustedText element shows back from the DOM, for the UI specs that check a card
// shows exactly what an agent sent (docs/supervision.md#what-the-ui-shows).
import type { Locator } from 'playwright-core';

/** Raw bidi controls: none may reach the DOM's text, where they would reorder what the person reads. */
export const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/** What an untrusted text element shows and stands for, read from the DOM. */
export interface Shown {
  /** The text as rendered: chips' labels and the text between them, in DOM (logical) order. */
  text: string;
  /** The characters it stands for: text nodes, and each mark's `data-raw`. */
  raw: string;
  chips: { label: string; name: string | null }[];
  unicodeBidi: string;
  direction: string;
}

/** Reads an UntrustedText element back from the DOM (see UntrustedText.tsx: each mark carries the characters it stands for). */
export function readShown(el: Locator): Promise<Shown> {
  return el.evaluate((node) => {
    // No named functions in here: the test runner's transform would name them with a helper the page lacks.
    let raw = '';
    const stack: Node[] = [node];
    while (stack.length > 0) {
      const n = stack.pop() as Node;
      if (n.nodeType === Node.TEXT_NODE) raw += n.textContent ?? '';
      else if (n instanceof HTMLElement && n.dataset['raw'] !== undefined) raw += n.dataset['raw'];
      else stack.push(...[...n.childNodes].reverse());
    }
    const style = getComputedStyle(node as HTMLElement);
    return {
      text: node.textContent ?? '',
      raw,
      chips: [...(node as HTMLElement).querySelectorAll('.esc')].map((c) => ({ label: c.textContent ?? '', name: c.getAttribute('aria-label') })),
      unicodeBidi: style.unicodeBidi,
      direction: style.direction,
    };
  });
}
