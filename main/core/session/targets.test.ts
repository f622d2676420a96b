import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { type ElementRef, type ErrorCode, OverseerError } from '../../../protocol/index.js';
import { TargetRegistry } from './targets.js';

const ref = (key: string, over: Partial<ElementRef> = {}): ElementRef => ({
  key,
  window: 'w1',
  process: { pid: 10, process_start: '100' },
  digest: `d-${key}`,
  role: 'button',
  name: `Button ${key}`,
  ...over,
});

/** The error code a resolution answers, or 'ok'. */
function codeOf(registry: TargetRegistry, handle: unknown): ErrorCode | 'ok' {
  try {
    registry.resolve(handle);
    return 'ok';
  } catch (e) {
    if (e instanceof OverseerError) return e.code;
    throw e;
  }
}

/** A settable fake clock. */
const clock = (): { now: () => number; advance: (ms: number) => void } => {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => (t += ms) };
};

describe('TargetRegistry', () => {
  it('resolves an issued handle to its ref and observation, and re-issues the same handle for the same element', () => {
    const reg = new TargetRegistry();
    const r = ref('a');
    const h = reg.issue('O1', 'w1', r);
    assert.match(h, /^T[A-Za-z0-9_-]{12}$/);
    assert.deepEqual(reg.resolve(h), { ref: r, observationId: 'O1' });
    assert.equal(reg.issue('O1', 'w1', r), h);
    assert.notEqual(reg.issue('O1', 'w1', ref('b')), h);
  });

  it('expires a handle five minutes after its observation', () => {
    const c = clock();
    const reg = new TargetRegistry({ now: c.now });
    const h = reg.issue('O1', 'w1', ref('a'));
    c.advance(5 * 60_000 - 1);
    assert.equal(codeOf(reg, h), 'ok');
    c.advance(1);
    assert.equal(codeOf(reg, h), 'snapshot_expired');
  });

  it('answers snapshot_spent for every handle of a spent observation, and only of that one', () => {
    const reg = new TargetRegistry();
    const a = reg.issue('O1', 'w1', ref('a'));
    const b = reg.issue('O1', 'w1', ref('b'));
    const other = reg.issue('O2', 'w2', ref('c', { window: 'w2' }));
    reg.spend('O1');
    assert.equal(codeOf(reg, a), 'snapshot_spent');
    assert.equal(codeOf(reg, b), 'snapshot_spent');
    assert.equal(codeOf(reg, other), 'ok');
  });

  it('supersedes older observations of the same scope but not of another scope', () => {
    const reg = new TargetRegistry();
    const old = reg.issue('O1', 'w1', ref('a'));
    const elsewhere = reg.issue('O2', 'w2', ref('a', { window: 'w2' }));
    const fresh = reg.issue('O3', 'w1', ref('b'));
    reg.supersede('w1', 'O3');
    assert.equal(codeOf(reg, old), 'snapshot_superseded');
    assert.equal(codeOf(reg, elsewhere), 'ok');
    assert.equal(codeOf(reg, fresh), 'ok');
    assert.throws(
      () => reg.resolve(old),
      (e) => e instanceof OverseerError && /O3/.test(e.info.detail) && e.info.data?.['superseded_by'] === 'O3',
    );
  });

  it('keeps the handle of an element re-observed unchanged, now bound to the newer observation', () => {
    const c = clock();
    const reg = new TargetRegistry({ now: c.now });
    const same = reg.issue('O1', 'w1', ref('a'));
    const renamed = reg.issue('O1', 'w1', ref('b'));
    c.advance(4 * 60_000);
    assert.equal(reg.issue('O2', 'w1', ref('a')), same);
    const renamedNow = reg.issue('O2', 'w1', ref('b', { name: 'Other', digest: 'd-b2' }));
    assert.notEqual(renamedNow, renamed);
    reg.supersede('w1', 'O2');
    assert.deepEqual(reg.resolve(same).observationId, 'O2');
    assert.equal(codeOf(reg, renamed), 'snapshot_superseded');
    c.advance(2 * 60_000);
    assert.equal(codeOf(reg, same), 'ok', 'the lifetime runs from the latest observation');
  });

  it('gives fresh handles after a spend: a spent observation never lends its handles', () => {
    const reg = new TargetRegistry();
    const h = reg.issue('O1', 'w1', ref('a'));
    reg.spend('O1');
    const again = reg.issue('O2', 'w1', ref('a'));
    assert.notEqual(again, h);
    reg.supersede('w1', 'O2');
    assert.equal(codeOf(reg, h), 'snapshot_superseded');
    assert.equal(codeOf(reg, again), 'ok');
  });

  it('evicts the oldest identity past 512 and answers snapshot_evicted for it', () => {
    const reg = new TargetRegistry();
    const handles = Array.from({ length: 513 }, (_, i) => reg.issue(`O${Math.floor(i / 100)}`, 'w1', ref(`k${i}`)));
    assert.equal(reg.size, 512);
    assert.equal(codeOf(reg, handles[0]), 'snapshot_evicted');
    assert.equal(codeOf(reg, handles[1]), 'ok');
    assert.equal(codeOf(reg, handles[512]), 'ok');
  });

  it('remembers a bounded number of evicted handles; older ones answer snapshot_unknown', () => {
    const reg = new TargetRegistry({ capacity: 1, evictedMemory: 2 });
    const handles = ['a', 'b', 'c', 'd'].map((k) => reg.issue('O1', 'w1', ref(k)));
    assert.deepEqual(
      handles.map((h) => codeOf(reg, h)),
      ['snapshot_unknown', 'snapshot_evicted', 'snapshot_evicted', 'ok'],
    );
  });

  it('answers snapshot_unknown for a handle of another registry and for malformed handles, without crashing', () => {
    const reg = new TargetRegistry();
    reg.issue('O1', 'w1', ref('a'));
    const foreign = new TargetRegistry().issue('O1', 'w1', ref('a'));
    assert.equal(codeOf(reg, foreign), 'snapshot_unknown');
    const malformed: unknown[] = [
      undefined,
      null,
      42,
      {},
      [],
      '',
      'T',
      'O1',
      `X${'a'.repeat(12)}`,
      `T${'a'.repeat(11)}`,
      `T${'a'.repeat(13)}`,
      `T${'a'.repeat(11)}=`,
      `T${'a'.repeat(11)}/`,
    ];
    for (const m of malformed) assert.equal(codeOf(reg, m), 'snapshot_unknown', String(m));
  });

  it('issues unique handles carrying 72 random bits', () => {
    const asked: number[] = [];
    const reg = new TargetRegistry({ capacity: 5000, random: (n) => (asked.push(n), randomBytes(n)) });
    const handles = Array.from({ length: 3000 }, (_, i) => reg.issue('O1', 'w1', ref(`k${i}`)));
    assert.equal(new Set(handles).size, handles.length);
    assert.ok(asked.every((n) => n === 9));
    for (const h of handles.slice(0, 50)) assert.equal(Buffer.from(h.slice(1), 'base64url').length, 9);
    const byDefault = new TargetRegistry();
    const one = byDefault.issue('O1', 'w1', ref('a'));
    const two = byDefault.issue('O1', 'w1', ref('b'));
    assert.notEqual(one, two);
    assert.equal(Buffer.from(one.slice(1), 'base64url').length, 9);
  });

  it('draws again when the random source repeats a handle', () => {
    const draws = [Buffer.alloc(9, 1), Buffer.alloc(9, 1), Buffer.alloc(9, 2)];
    const reg = new TargetRegistry({ random: () => draws.shift() ?? Buffer.alloc(9, 3) });
    const a = reg.issue('O1', 'w1', ref('a'));
    const b = reg.issue('O1', 'w1', ref('b'));
    assert.notEqual(a, b);
    assert.equal(draws.length, 0);
  });
});
