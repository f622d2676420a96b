import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QUEUE_BOUNDS, QueueAdmission, type Admitted } from './admission.js';

/** Admits items until one is refused; returns how many got in and the refusal. */
function fill(q: QueueAdmission, session: string, identity: string, max = 1000): { admitted: Admitted[]; refusal?: string } {
  const admitted: Admitted[] = [];
  for (let i = 0; i < max; i++) {
    const a = q.admit(session, identity);
    if (!a.ok) return { admitted, refusal: a.reason };
    admitted.push(a);
  }
  return { admitted };
}

describe('who may add to the person’s queue', () => {
  it('holds one session to its bound, and many sessions of one agent to the same bound', () => {
    const q = new QueueAdmission();
    assert.deepEqual([fill(q, 'S1', 'http:probe').admitted.length, fill(q, 'S1', 'http:probe').refusal], [QUEUE_BOUNDS.perSession, 'session_limit']);
    const others = Array.from({ length: 14 }, (_, i) => fill(q, `S${i + 2}`, 'http:probe'));
    assert.equal(
      others.reduce((n, o) => n + o.admitted.length, 0),
      0,
      'the same agent opening 14 more sessions gets nothing more',
    );
    assert.equal(others[0]?.refusal, 'identity_limit');
    assert.equal(q.size, QUEUE_BOUNDS.perIdentity);
  });

  it('gives every agent its fair share when the queue is busy, and never passes the hard bound', () => {
    const q = new QueueAdmission();
    // A flooder that names each of its 64 sessions differently.
    let flood = 0;
    for (let i = 0; i < 64; i++) flood += fill(q, `F${i}`, `http:name-${i}`).admitted.length;
    assert.ok(q.size <= QUEUE_BOUNDS.hard, `${q.size} items`);
    assert.equal(flood, q.size);
    // Early identities got up to their own bound; later ones only their fair share.
    const late = fill(new QueueAdmission(), 'x', 'y');
    assert.equal(late.admitted.length, QUEUE_BOUNDS.perSession);
    // Six agents asking in turn: past half the queue each is held to 64 / 6, leaving room for others.
    const busy = new QueueAdmission();
    const refusals = new Map<string, string>();
    const got = new Map<string, number>();
    for (let round = 0; round < 20; round++)
      for (let i = 0; i < 6; i++) {
        if (refusals.has(`a${i}`)) continue;
        const a = busy.admit(`S${i}`, `a${i}`);
        if (a.ok) got.set(`a${i}`, (got.get(`a${i}`) ?? 0) + 1);
        else refusals.set(`a${i}`, a.reason);
      }
    const share = Math.floor(QUEUE_BOUNDS.global / 6);
    assert.deepEqual([...got.values()], Array(6).fill(share));
    assert.deepEqual([...new Set(refusals.values())], ['fair_share']);
    const seventh = fill(busy, 'S7', 'a7');
    assert.ok(seventh.admitted.length >= QUEUE_BOUNDS.minShare, 'a seventh agent still reaches the person');
  });

  it('lets an agent with nothing waiting in while the queue is full, up to the hard bound', () => {
    const q = new QueueAdmission();
    for (let i = 0; i < 40; i++) fill(q, `F${i}`, `http:f${i}`);
    const size = q.size;
    assert.ok(size >= QUEUE_BOUNDS.global, `${size}`);
    const newcomer = fill(q, 'N', 'host:4242');
    assert.ok(newcomer.admitted.length >= 1 || size >= QUEUE_BOUNDS.hard, 'a quiet agent still reaches the person');
    assert.ok(q.size <= QUEUE_BOUNDS.hard);
  });

  it('releases each item once, whatever ends it', () => {
    const q = new QueueAdmission();
    const { admitted } = fill(q, 'S', 'i');
    for (const a of admitted) {
      a.release();
      a.release();
    }
    assert.equal(q.size, 0);
    assert.equal(fill(q, 'S', 'i').admitted.length, QUEUE_BOUNDS.perSession, 'released items make room again');
  });
});
