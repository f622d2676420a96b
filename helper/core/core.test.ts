import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import type { Role, Selector, Truncation } from '../../protocol/index.js';
import type { NativeNode, TreeSource } from './backend.js';
import { Deadline } from './deadline.js';
import { documentOrder } from './find.js';
import { matchNode } from './selectors.js';
import { shape } from './shape.js';
import { fold } from './text.js';
import { walk } from './walk.js';

/** An in-memory tree source for logic tests: `spec` maps key → [role, name, children]. */
function source(spec: Record<string, [Role, string, string[]]>, extra: Partial<Record<string, Partial<NativeNode>>> = {}): TreeSource {
  const nodes = new Map<string, NativeNode>();
  for (const [key, [role, name, children]] of Object.entries(spec)) {
    nodes.set(key, {
      key,
      parent: undefined,
      children,
      childCount: children.length,
      role,
      name,
      state: { enabled: true },
      patterns: [],
      detailed: true,
      unread: new Set(),
      ...extra[key],
    });
  }
  for (const n of nodes.values())
    for (const c of n.children ?? []) {
      const child = nodes.get(c);
      if (child) child.parent = n.key;
    }
  return {
    window: {
      info: { window: 'w', title: 'W', app: 'a', pid: 1, process_start: '1', foreground: true },
      rootKey: 'root',
      process: { pid: 1, process_start: '1' },
    },
    node: (k) => nodes.get(k),
    expand: () => Promise.resolve(),
    fetch: () => Promise.resolve(undefined),
    isDetailed: () => true,
    details: () => Promise.resolve(),
    truncated: new Set<Truncation>(),
    notes: [],
    finish: () => {},
  };
}

const wide = (n: number): Record<string, [Role, string, string[]]> => {
  const spec: Record<string, [Role, string, string[]]> = { root: ['window', 'Main', ['a', 'b']], a: ['group', 'A', []], b: ['group', 'B', []] };
  const kids = Array.from({ length: n }, (_, i) => `c${i}`);
  (spec['a'] as [Role, string, string[]])[2] = kids;
  for (const k of kids) spec[k] = ['button', k, []];
  return spec;
};

describe('Deadline', () => {
  it("ends when its caller cancels, in every slice, and adds no listener to the caller's signal however often it is sliced", () => {
    const caller = new AbortController();
    const deadline = new Deadline(10_000, caller.signal);
    const slices = Array.from({ length: 2000 }, () => deadline.slice(5000));
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
    assert.ok(slices.every((d) => !d.expired() && d.remaining() > 4000));
    caller.abort();
    assert.ok(deadline.expired() && deadline.aborted);
    assert.ok(slices.every((d) => d.expired() && d.aborted && d.remaining() === 0));
  });
});

describe('fold (selector case folding)', () => {
  it('folds Cyrillic, German sharp s and Greek sigma', () => {
    assert.equal(fold('ПРИВЕТ'), fold('привет'));
    assert.equal(fold('STRASSE'), fold('straße'));
    assert.equal(fold('ΣΟΦΟΣ'), fold('σοφος'));
    assert.notEqual(fold('Save '), fold('Save'));
  });
});

describe('matchNode', () => {
  const node = (over: Partial<NativeNode>): NativeNode => ({
    key: 'k',
    parent: undefined,
    children: [],
    childCount: 0,
    role: 'button',
    name: 'Сохранить',
    patterns: [],
    detailed: true,
    unread: new Set(),
    state: {},
    ...over,
  });
  const m = (n: NativeNode, s: Selector): ReturnType<typeof matchNode> => matchNode(n, s);

  it('uses AND semantics', () => {
    assert.equal(m(node({}), { role: 'button', name: 'сохранить' }), 'yes');
    assert.equal(m(node({}), { role: 'check_box', name: 'сохранить' }), 'no');
  });

  it('matches roles regardless of case and separators', () => {
    assert.equal(m(node({ role: 'check_box' }), { role: 'CheckBox' }), 'yes');
  });

  it('keeps automation_id exact and case-sensitive', () => {
    assert.equal(m(node({ automationId: 'save_ru' }), { automation_id: 'save_ru' }), 'yes');
    assert.equal(m(node({ automationId: 'save_ru' }), { automation_id: 'SAVE_RU' }), 'no');
  });

  it('finds the text an element shows: its value, or the name of a text element without one', () => {
    assert.equal(m(node({ role: 'paragraph', name: '', value: 'Remember the milk.' }), { value_contains: 'the MILK' }), 'yes');
    assert.equal(m(node({ role: 'label', name: 'Remember the milk.' }), { value_contains: 'milk' }), 'yes');
    assert.equal(m(node({ role: 'button', name: 'Remember the milk.' }), { value_contains: 'milk' }), 'no', "a button's name is not text it shows");
  });

  it('never matches a password value', () => {
    assert.equal(m(node({ value: 'hunter2', state: { password: true } }), { value_contains: 'hunter' }), 'no');
  });

  it('reports unread fields instead of guessing, but a definite mismatch wins', () => {
    assert.deepEqual(m(node({ unread: new Set(['automation_id']) }), { automation_id: 'x' }), ['automation_id']);
    assert.equal(m(node({ unread: new Set(['automation_id']) }), { automation_id: 'x', role: 'slider' }), 'no');
  });
});

describe('walk', () => {
  it('keeps the upper levels whole when max_nodes cuts', async () => {
    const r = await walk(source(wide(50)), { maxNodes: 10, maxDepth: 10, maxChildren: 1000 }, new Deadline(1000));
    assert.equal(r.keys.length, 10);
    assert.ok(r.keys.includes('b'), 'the second child of the root is kept before deeper nodes');
    assert.deepEqual([...r.truncated], ['max_nodes']);
  });

  it('names max_children and max_depth cuts', async () => {
    const children = await walk(source(wide(50)), { maxNodes: 1000, maxDepth: 10, maxChildren: 5 }, new Deadline(1000));
    assert.ok(children.truncated.has('max_children'));
    assert.equal(children.keys.length, 3 + 5);
    const depth = await walk(source(wide(5)), { maxNodes: 1000, maxDepth: 1, maxChildren: 100 }, new Deadline(1000));
    assert.deepEqual([...depth.truncated], ['max_depth']);
    assert.deepEqual(depth.keys, ['root', 'a', 'b']);
  });

  it("spends the budget on a document's content before a wide toolbar row and before what is hidden", async () => {
    // window > [toolbar (40 buttons), menu (offscreen, 10 items), pane > document > 30 paragraphs]
    const spec: Record<string, [Role, string, string[]]> = {
      root: ['window', 'Writer', ['bar', 'menu', 'pane']],
      bar: ['tool_bar', 'Standard', Array.from({ length: 40 }, (_, i) => `b${i}`)],
      menu: ['menu', 'File', Array.from({ length: 10 }, (_, i) => `m${i}`)],
      pane: ['pane', '', ['doc']],
      doc: ['document', 'Letter', Array.from({ length: 30 }, (_, i) => `p${i}`)],
    };
    for (let i = 0; i < 40; i++) spec[`b${i}`] = ['button', `B${i}`, []];
    for (let i = 0; i < 10; i++) spec[`m${i}`] = ['menu_item', `M${i}`, []];
    for (let i = 0; i < 30; i++) spec[`p${i}`] = ['paragraph', '', []];
    const hidden = { menu: { state: { enabled: true, offscreen: true } } };
    const r = await walk(source(spec, hidden), { maxNodes: 40, maxDepth: 10, maxChildren: 1000 }, new Deadline(1000));
    const paragraphs = r.keys.filter((k) => k.startsWith('p') && k !== 'pane');
    assert.equal(paragraphs.length, 30, 'every paragraph is read');
    assert.ok(
      ['root', 'bar', 'pane', 'doc'].every((k) => r.keys.includes(k)),
      'with the ancestors and the shown siblings above them',
    );
    assert.ok(!r.keys.includes('menu'), 'a closed menu comes last, even at the top');
    assert.ok(!r.keys.some((k) => k.startsWith('m')), 'a closed menu comes last');
    assert.ok(r.truncated.has('max_nodes'));
    assert.match(r.notes.join(' '), /content first/);
    // Every element comes after its parent, so a token budget spent in this order keeps the tree whole.
    for (const [i, k] of r.keys.entries()) if (k !== 'root') assert.ok(r.keys.indexOf(source(spec, hidden).node(k)?.parent ?? '') < i, k);
  });

  it('says so when children were read in part on purpose (a visible part)', async () => {
    const r = await walk(
      source(wide(3), { a: { childrenCut: { cut: 'visible_part', note: 'visible_part: only the visible rows' } } }),
      { maxNodes: 1000, maxDepth: 10, maxChildren: 100 },
      new Deadline(1000),
    );
    assert.deepEqual([...r.truncated], ['visible_part']);
    assert.deepEqual(r.notes, ['visible_part: only the visible rows']);
    assert.equal(r.complete, false);
  });

  it('reports a complete walk only when nothing was cut', async () => {
    const r = await walk(source(wide(5)), { maxNodes: 1000, maxDepth: 10, maxChildren: 100 }, new Deadline(1000));
    assert.equal(r.complete, true);
    assert.deepEqual(documentOrder(source(wide(2)), new Set(['root', 'a', 'b', 'c0', 'c1'])), ['root', 'a', 'c0', 'c1', 'b']);
  });
});

describe('shape', () => {
  it('never lets a password value out', () => {
    const s = source({ root: ['window', 'W', ['p']], p: ['edit', 'Password', []] }, { p: { value: 'hunter2', state: { password: true } } });
    const out = shape(s, ['root', 'p'], 'flat', { maxTextChars: 100, identity: true, maxTokens: 10000 });
    const p = out.elements[1];
    assert.equal(p?.value, undefined);
    assert.equal(p?.redacted, true);
    assert.ok(!JSON.stringify(out).includes('hunter2'));
  });

  it('cuts long text and names the cut', () => {
    const s = source({ root: ['window', 'W', ['l']], l: ['label', 'x'.repeat(50), []] });
    const out = shape(s, ['root', 'l'], 'tree', { maxTextChars: 10, identity: false, maxTokens: 10000 });
    assert.equal(out.elements[0]?.children?.[0]?.name, `${'x'.repeat(10)}…`);
    assert.deepEqual(out.elements[0]?.children?.[0]?.cut, ['name']);
    assert.ok(out.truncated.has('max_text'));
  });

  it('stops at max_tokens and says so', () => {
    const s = source(wide(200));
    const out = shape(s, Object.keys(wide(200)), 'flat', { maxTextChars: 100, identity: false, maxTokens: 300 });
    assert.ok(out.truncated.has('max_tokens'));
    assert.ok(out.nodeCount < 50 && out.nodeCount > 3, `${out.nodeCount}`);
    assert.ok(JSON.stringify(out.elements).length / 4 <= 300 + 50);
    assert.ok(
      out.elements.some((e) => e.key === 'b'),
      'the token cut keeps upper levels whole',
    );
  });

  it('gives duplicates the same digest but different keys', () => {
    const s = source({ root: ['window', 'W', ['g']], g: ['group', 'G', ['x', 'y']], x: ['button', 'Dup', []], y: ['button', 'Dup', []] });
    const out = shape(s, ['root', 'g', 'x', 'y'], 'flat', { maxTextChars: 100, identity: true, maxTokens: 10000 });
    assert.equal(out.elements[2]?.digest, out.elements[3]?.digest);
    assert.notEqual(out.elements[2]?.key, out.elements[3]?.key);
  });
});
