import { useEffect, useRef, useState, type RefObject } from 'react';
import type { CardPictureKind } from '../../../protocol/index.js';
import { ApiError } from '../../api/api.js';
import { useApi } from '../shell/apiContext.js';

/** Pictures fetched, by approval id and kind: a card that re-renders or comes back is not fetched again. */
const cache = new Map<string, string>();
/** Kept pictures (a queue is bounded; this keeps the ones on screen and a few around them). */
const MAX_CACHED = 48;

function remember(key: string, picture: string): void {
  cache.delete(key);
  cache.set(key, picture);
  while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string);
}

/**
 * A card's picture (docs/architecture.md#ui-channel): cards reach the UI without their pixels, and
 * each picture is asked for by id once its card comes near the screen, so a queue of many cards
 * costs the socket only what the person can see. `src` is the card's own picture field: when the
 * supervisor sent the pixels, they are used as they are.
 */
export function useCardPicture(
  approvalId: string,
  which: CardPictureKind,
  src: string,
): { ref: RefObject<HTMLDivElement | null>; picture?: string; error?: string } {
  const api = useApi();
  const ref = useRef<HTMLDivElement | null>(null);
  const key = `${approvalId}:${which}`;
  const [state, setState] = useState<{ key: string; picture?: string; error?: string }>({ key });
  const [near, setNear] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (src !== '' || el === null) return;
    if (typeof IntersectionObserver === 'undefined') {
      setNear(true);
      return;
    }
    const seen = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && setNear(true), { rootMargin: '600px 0px' });
    seen.observe(el);
    return () => seen.disconnect();
  }, [src, key]);
  useEffect(() => {
    if (src !== '' || !near || cache.has(key)) return;
    let current = true;
    api.command('card_picture', { approval_id: approvalId, which }).then(
      (r) => {
        remember(key, r.picture);
        if (current) setState({ key, picture: r.picture });
      },
      (e: unknown) => current && setState({ key, error: e instanceof ApiError ? `${e.info.code}: ${e.info.detail}` : String(e) }),
    );
    return () => {
      current = false;
    };
  }, [api, approvalId, which, key, src, near]);
  if (src !== '') return { ref, picture: src };
  const cached = cache.get(key);
  if (cached !== undefined) return { ref, picture: cached };
  if (state.key !== key) return { ref };
  return { ref, ...(state.picture !== undefined ? { picture: state.picture } : {}), ...(state.error !== undefined ? { error: state.error } : {}) };
}
