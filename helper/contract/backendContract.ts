import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OverseerError, TIMEOUT_GRACE_MS, type Element, type ElementRef } from '../../protocol/index.js';
import { calls, isNamed, selectorOf, type ContractFeature, type ContractSetup } from './contractSetup.js';

const flatten = (els: Element[]): Element[] => els.flatMap((e) => [e, ...flatten(e.children ?? [])]);
const rejectsWith = async (p: Promise<unknown>, code: string): Promise<OverseerError> => {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof OverseerError, `expected OverseerError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}, but the call succeeded`);
};

/**
 * The backend contract: every behaviour of docs/tools.md the helper owns, against the real helper and the
 * real fixture application. Each backend lane runs it with its own setup.
 */
export function backendContract(title: string, makeSetup: () => Promise<ContractSetup>): void {
  describe(title, () => {
    let s: ContractSetup;
    let c: ReturnType<typeof calls>;
    /** Skips a behaviour the backend lacks, saying why; true when skipped. */
    const sel = (name: string) => selectorOf(s, name);
    const is = (e: Parameters<typeof isNamed>[1], name: string): boolean => isNamed(s, e, name);
    const lacking = (t: { skip(message?: string): void }, feature: ContractFeature): boolean => {
      const why = s.lacks[feature];
      if (why !== undefined) t.skip(why);
      return why !== undefined;
    };
    before(async () => {
      s = await makeSetup();
      c = calls(s);
    });
    after(async () => {
      await s?.stop();
    });

    describe('hello and window_list', () => {
      it('names the backend, version, capabilities and limits with ceilings', async () => {
        const h = await s.helper.call('hello', {});
        assert.equal(h.backend, s.backend);
        assert.match(h.version, /^\d+\.\d+\.\d+/);
        assert.deepEqual(h.limits['max_nodes'], { default: 400, min: 1, ceiling: 5000 });
        assert.deepEqual(h.limits['timeout_ms'], { default: 5000, min: 1, ceiling: 20000 });
        assert.equal(h.actions.length, 8);
      });

      it('lists the fixture window with its process identity and rect', async () => {
        const l = await s.helper.call('window_list', {});
        const w = l.windows.find((x) => x.window === s.fixtureWindow);
        assert.ok(w, JSON.stringify(l.windows.map((x) => x.title)));
        assert.equal(w.title, 'Overseer Fixture');
        if (s.lacks.process_identity === undefined) {
          assert.equal(w.pid, s.fixturePid);
          assert.match(w.process_start, /^\d+$/);
        } else assert.equal(w.pid, 0, `${s.lacks.process_identity}: pid 0, never a made-up one`);
        assert.ok(w.rect !== undefined && w.rect.w > 0);
        assert.deepEqual(l.limit, { value: 100, ceiling: 500 });
        assert.ok(!l.windows.some((x) => x.pid === s.helper.child.pid), 'never lists the helper itself');
      });

      it("keeps window ids stable for the window's life", async () => {
        const a = await s.helper.call('window_list', {});
        await c.read({ max_nodes: 10 });
        const b = await s.helper.call('window_list', {});
        assert.deepEqual(b.windows.map((w) => w.window).sort(), a.windows.map((w) => w.window).sort());
      });

      it('cuts the listing at the limit and says so', async () => {
        const l = await s.helper.call('window_list', { limit: 1 });
        assert.equal(l.windows.length, 1);
        assert.deepEqual(l.truncated_by, ['limit']);
        assert.equal(l.total_known, false);
        const clamped = await s.helper.call('window_list', { limit: 9999 });
        assert.deepEqual(clamped.limit, { value: 500, ceiling: 500, requested: 9999 });
      });
    });

    describe('window_read', () => {
      it('reads the fixture as a tree with roles, names, ids, rects and states', async () => {
        const r = await c.read({ max_nodes: 5000, max_tokens: 200_000 });
        assert.equal(r.format, 'tree');
        const all = flatten(r.elements);
        assert.equal(all.length, r.node_count);
        const counter = all.find((e) => is(e, 'counter'));
        assert.ok(counter, 'the Counter button carries its automation id');
        assert.equal(counter.role, 'button');
        assert.equal(counter.name, 'Counter');
        assert.ok(counter.rect && counter.rect.cx === Math.round(counter.rect.x + counter.rect.w / 2));
        assert.equal(counter.state.enabled, true);
        assert.ok(counter.patterns.includes('invoke'));
        assert.ok(
          all.some((e) => e.name === 'Сохранить'),
          'Cyrillic names come through',
        );
        assert.ok(all.some((e) => e.name === 'Grüße ✓ 日本語'));
        assert.equal(all.find((e) => is(e, 'disabled'))?.state.enabled, false);
      });

      it('never returns a password value', async () => {
        const r = await c.read({ max_nodes: 5000, format: 'flat' });
        const pw = r.elements.find((e) => is(e, 'password'));
        assert.ok(pw);
        assert.equal(pw.state.password, true);
        assert.equal(pw.value, undefined);
        assert.equal(pw.redacted, true);
        assert.ok(!JSON.stringify(r).includes('hunter2'));
      });

      it('gives flat lists depth and parent keys', async () => {
        const r = await c.read({ format: 'flat', max_nodes: 50 });
        assert.equal(r.elements[0]?.depth, 0);
        const keys = new Set(r.elements.map((e) => e.key));
        for (const e of r.elements.slice(1)) assert.ok(e.parent !== undefined && keys.has(e.parent));
      });

      it('echoes every limit with its ceiling and notes a clamp', async () => {
        const r = await c.read({ max_nodes: 9999 });
        assert.deepEqual(r.limits['max_nodes'], { value: 5000, ceiling: 5000, requested: 9999 });
        for (const name of ['max_depth', 'max_children_per_node', 'max_text_chars', 'max_tokens', 'timeout_ms']) assert.ok(r.limits[name], name);
        assert.ok(r.notes.some((n) => n.includes('clamped')));
      });

      it('names every cut: max_nodes, max_depth, max_children, max_text, max_tokens', async () => {
        const nodes = await c.read({ max_nodes: 30 });
        assert.equal(nodes.node_count, 30);
        assert.ok(nodes.truncated_by.includes('max_nodes'));
        const depth = await c.read({ max_depth: 2, format: 'flat' });
        assert.ok(depth.truncated_by.includes('max_depth'));
        assert.ok(depth.elements.every((e) => (e.depth ?? 0) <= 2));
        const kids = await c.read({ max_children_per_node: 5, max_nodes: 5000 });
        assert.ok(kids.truncated_by.includes('max_children'), 'the long list has more than 5 children');
        const text = await c.read({ max_text_chars: 3, max_nodes: 5000, max_tokens: 200_000, format: 'flat' });
        assert.ok(text.truncated_by.includes('max_text'));
        assert.ok(text.elements.some((e) => e.name === 'Сох…' && e.cut?.includes('name')));
        const tokens = await c.read({ max_tokens: 500, max_nodes: 5000 });
        assert.ok(tokens.truncated_by.includes('max_tokens'));
        assert.ok(JSON.stringify(tokens.elements).length / 4 < 700);
        for (const r of [nodes, depth, kids, text, tokens]) assert.ok(r.notes.length > 0, 'a cut is never silent');
      });

      it('reads the long list within its budgets', async () => {
        const r = await c.read({ max_nodes: 5000, max_children_per_node: 5000, max_tokens: 200_000, format: 'flat' });
        const rows = r.elements.filter((e) => e.name?.startsWith('Row '));
        assert.ok(rows.length >= Math.min(s.rows, 1000), `${rows.length} of ${s.rows} rows`);
        assert.ok(r.node_count <= 5000);
      });

      it('refuses an unknown window id shape and answers a vanished window stale', async () => {
        await rejectsWith(s.helper.call('window_read', { window: 'nonsense' }), 'invalid_argument');
      });
    });

    describe('element_find', () => {
      it('finds by exact, case-sensitive automation id', async (t) => {
        if (lacking(t, 'automation_id')) return;
        const r = await c.find(sel('save_ru'));
        assert.equal(r.match_count, 1);
        assert.equal(r.matches[0]?.name, 'Сохранить');
        // Case matters where ids have letters (numeric Win32 control ids have no case to get wrong).
        const wrongCase = await c.find({
          automation_id: s.id('save_ru') === s.id('save_ru').toUpperCase() ? `${s.id('save_ru')}0` : s.id('save_ru').toUpperCase(),
        });
        assert.equal(wrongCase.match_count, 0);
        assert.equal(wrongCase.searched_whole_window, true);
        assert.equal(wrongCase.reason, undefined);
      });

      it('folds case for role and name, Cyrillic included', async () => {
        const r = await c.find({ role: 'BUTTON', name: 'привет' });
        assert.equal(r.match_count, 1);
        assert.ok(is(r.matches[0], 'hello_ru'));
      });

      it('ANDs every given field', async () => {
        assert.equal((await c.find({ role: 'button', name: 'Subscribe' })).match_count, 0);
        assert.equal((await c.find({ role: 'check_box', name: 'Subscribe' })).match_count, 1);
      });

      it('matches name_contains and value_contains, never a password value', async () => {
        assert.ok((await c.find({ name_contains: 'ПЛИ' })).match_count === 0);
        assert.ok(is((await c.find({ name_contains: 'ранит' })).matches[0], 'save_ru'));
        const v = await c.find({ value_contains: 'alic' });
        assert.ok(is(v.matches[0], 'name_entry'), JSON.stringify(v.matches[0]));
        assert.equal((await c.find({ value_contains: 'hunter' })).match_count, 0);
      });

      it('counts duplicates and picks one with nth in document order', async () => {
        const all = await c.find({ name: 'Duplicate' });
        assert.equal(all.match_count, 2);
        const second = await c.find({ name: 'Duplicate', nth: 1 });
        assert.equal(second.matches.length, 1);
        if (s.lacks.automation_id === undefined) {
          assert.deepEqual(
            all.matches.map((m) => m.automation_id),
            [s.id('dup_a'), s.id('dup_b')],
          );
          assert.equal(second.matches[0]?.automation_id, s.id('dup_b'));
        } else assert.deepEqual(second.matches[0]?.rect, all.matches[1]?.rect, 'nth 1 is the second in document order');
        const beyond = await c.find({ name: 'Duplicate', nth: 5 });
        assert.equal(beyond.matches.length, 0);
      });

      it('answers not found only after searching the whole window', async () => {
        const r = await c.find({ name: 'No such element anywhere' });
        assert.equal(r.match_count, 0);
        assert.equal(r.searched_whole_window, true);
        assert.deepEqual(r.truncated_by, []);
      });

      it('waits up to timeout_ms for a first match', async (t) => {
        if (lacking(t, 'act')) return;
        const waiting = c.find({ name: 'Renamed' }, { timeout_ms: 4000 });
        await new Promise((r) => setTimeout(r, 400));
        const acted = await c.act(sel('renamable'), 'invoke');
        assert.equal(acted.outcome, 'completed');
        const r = await waiting;
        assert.equal(r.match_count, 1);
        assert.ok((r.stopped_before_timeout_ms ?? 0) > 0 && (r.stopped_before_timeout_ms ?? 0) < 4000);
        assert.ok(r.last_walk_ms !== undefined);
      });

      it('refuses null, numbers, blanks and unknown fields with invalid_argument', async () => {
        for (const selector of [{ name: null }, { name: 42 }, { name: '  ' }, { nam: 'x' }, {}]) {
          const e = await rejectsWith(s.helper.call('element_find', { window: s.fixtureWindow, selector } as never), 'invalid_argument');
          assert.ok(Array.isArray(e.info.data?.['issues']));
        }
      });
    });

    describe('element_act', () => {
      it('invokes a button and the application shows the effect', async (t) => {
        if (lacking(t, 'act')) return;
        const r = await c.act(sel('counter'), 'invoke');
        assert.equal(r.outcome, 'completed');
        assert.equal(r.action_call_made, true);
        assert.match(r.path ?? '', new RegExp(`^${s.backend}:`));
        assert.equal(r.target?.name, 'Counter');
        assert.equal(r.after_read.status, 'full');
        const label = await c.find({ name: 'Clicks: 1' }, { timeout_ms: 2000 });
        assert.equal(label.match_count, 1);
      });

      it('sets text and verifies it by reading back', async (t) => {
        if (lacking(t, 'act')) return;
        const r = await c.act(sel('name_entry'), 'set_value', 'Мария Müller');
        assert.equal(r.outcome, 'completed');
        assert.equal(r.verification, 'verified');
        assert.equal(r.after?.value, 'Мария Müller');
        assert.equal((await c.one(sel('name_entry'))).value, 'Мария Müller');
        const cleared = await c.act(sel('name_entry'), 'set_value', '');
        assert.equal(cleared.verification, 'verified');
      });

      it('clears a text field with "", and refuses "" for a slider instead of setting it to 0', async (t) => {
        if (lacking(t, 'act')) return;
        await c.act(sel('name_entry'), 'set_value', 'to be cleared');
        const cleared = await c.act(sel('name_entry'), 'set_value', '');
        assert.equal(cleared.outcome, 'completed');
        assert.equal(cleared.action_call_made, true);
        assert.match(cleared.path ?? '', /EditableText|ValuePattern|WM_SETTEXT/);
        assert.equal(cleared.verification, 'verified');
        assert.equal(cleared.after?.value, '');
        assert.equal((await c.one(sel('name_entry'))).value, '');
        if (lacking(t, 'range_value')) return;
        const before = (await c.one(sel('volume'))).value;
        const slider = await c.act(sel('volume'), 'set_value', '');
        assert.equal(slider.outcome, 'refused');
        assert.equal(slider.refusal?.code, 'invalid_argument');
        assert.equal(slider.action_call_made, false);
        assert.equal((await c.one(sel('volume'))).value, before);
      });

      it('sets a password without the text ever leaving the helper', async (t) => {
        if (lacking(t, 'act')) return;
        const r = await c.act(sel('password'), 'set_value', 's3cret-Пароль');
        assert.equal(r.outcome, 'completed');
        assert.equal(r.action_call_made, true);
        assert.equal(r.verification, 'not_checked', 'a password cannot be read back, so it is never claimed verified');
        assert.match(r.verification_detail ?? '', /password/);
        assert.notEqual(r.text, 's3cret-Пароль');
        assert.ok(!JSON.stringify(r).includes('s3cret'));
      });

      it('toggles a check box', async (t) => {
        if (lacking(t, 'act')) return;
        const r = await c.act(sel('subscribe'), 'toggle');
        assert.equal(r.verification, 'verified');
        assert.equal(r.target?.state.checked, false);
        assert.equal(r.after?.state.checked, true);
      });

      it('selects a radio button', async (t) => {
        if (lacking(t, 'act')) return;
        const r = await c.act(sel('size_large'), 'select');
        assert.equal(r.outcome, 'completed');
        assert.equal(r.verification, 'verified');
        assert.equal((await c.one(sel('size_small'))).state.checked, false);
      });

      it('selects a combo box item, and the combo box shows it as its value', async (t) => {
        if (lacking(t, 'act')) return;
        assert.equal((await c.one(sel('color'))).value, 'Red');
        const r = await c.act({ role: s.comboItemRole, name: 'Green' }, 'select');
        assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal ?? r.error));
        assert.equal(r.verification, 'verified');
        assert.equal((await c.one(sel('color'))).value, 'Green');
        assert.equal((await c.find({ automation_id: s.id('color'), value_contains: 'gree' })).match_count, 1);
      });

      it('sets a slider and a spin button through their range value', async (t) => {
        if (lacking(t, 'act')) return;
        if (lacking(t, 'range_value')) return;
        const slider = await c.act(sel('volume'), 'set_value', '75');
        assert.equal(slider.verification, 'verified');
        assert.equal(slider.after?.value, '75');
        const spin = await c.act(sel('quantity'), 'set_value', '7');
        assert.equal(spin.verification, 'verified');
        const bad = await c.act(sel('volume'), 'set_value', 'loud');
        assert.equal(bad.outcome, 'refused');
        assert.equal(bad.refusal?.code, 'invalid_argument');
      });

      it('expands and collapses', async (t) => {
        if (lacking(t, 'act')) return;
        if (lacking(t, 'expand')) return;
        const open = await c.act(sel('details'), 'expand');
        assert.equal(open.verification, 'verified');
        assert.equal(open.after?.state.expanded, true);
        const shut = await c.act(sel('details'), 'collapse');
        assert.equal(shut.verification, 'verified');
        assert.equal(shut.after?.state.expanded, false);
      });

      it('expands a tree row', async (t) => {
        if (lacking(t, 'act')) return;
        if (lacking(t, 'tree')) return;
        const r = await c.act({ name: 'Fruits' }, 'expand');
        assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal ?? r.error));
        assert.equal(r.verification, 'verified');
        assert.equal((await c.find({ name: 'Apple' }, { timeout_ms: 2000 })).match_count, 1);
      });

      it('focuses an entry', async (t) => {
        if (lacking(t, 'act')) return;
        if (lacking(t, 'focus')) return;
        const r = await c.act(sel('name_entry'), 'focus');
        assert.equal(r.verification, 'verified');
        assert.equal(r.after?.state.focused, true);
      });

      it('scrolls an element into view, or says honestly that the provider did not', async (t) => {
        if (lacking(t, 'act')) return;
        if (lacking(t, 'scroll')) return;
        const r = await c.act(sel('intl'), 'scroll_into_view');
        assert.match(r.path ?? '', /ScrollTo|ScrollItem|scroll/i);
        assert.equal(r.action_call_made, true);
        if (r.outcome === 'completed') assert.equal(r.after?.state.offscreen, false);
        else {
          // GTK3 widgets do not implement Component.ScrollTo: the call is made and answers false.
          assert.equal(r.outcome, 'failed');
          assert.ok(r.error !== undefined);
        }
      });

      it('refuses an ambiguous selector and lists the candidates', async () => {
        const r = await c.act({ name: 'Duplicate' }, 'invoke');
        assert.equal(r.outcome, 'refused');
        assert.equal(r.action_call_made, false);
        assert.equal(r.refusal?.code, 'ambiguous');
        assert.equal(r.refusal?.data?.['match_count'], 2);
        assert.equal((r.refusal?.data?.['candidates'] as unknown[]).length, 2);
        if (s.lacks.act !== undefined) return;
        const nth = await c.act({ name: 'Duplicate', nth: 1 }, 'invoke');
        assert.equal(nth.outcome, 'completed');
        assert.ok(is(nth.target, 'dup_b'));
      });

      it('refuses not found, unsupported patterns and disabled elements without dispatching', async () => {
        const none = await c.act({ name: 'Nope nothing' }, 'invoke');
        assert.equal(none.refusal?.code, 'not_found');
        const label = await c.act(sel('intl'), 'toggle');
        assert.equal(label.refusal?.code, 'pattern_unsupported');
        assert.ok(Array.isArray(label.refusal?.data?.['supported']));
        const off = await c.act(sel('disabled'), 'invoke');
        assert.equal(off.refusal?.code, 'not_enabled');
        for (const r of [none, label, off]) assert.equal(r.action_call_made, false);
      });

      it('refuses to act where the backend cannot, saying what can be done instead, and nothing happens', async (t) => {
        if (s.lacks.act === undefined) {
          t.skip('the backend acts: the cases above prove it');
          return;
        }
        const r = await c.act(sel('counter'), 'invoke');
        assert.equal(r.refusal?.code, 'pattern_unsupported', `${s.lacks.act}: ${JSON.stringify(r)}`);
        assert.equal(r.action_call_made, false);
        assert.equal(typeof r.refusal?.data?.['instead'], 'string', 'the refusal says what to do instead');
        assert.ok(r.target?.rect !== undefined, 'and where the element is');
        assert.equal((await c.find({ name: 'Clicks: 0' })).match_count, 1, 'the application shows no effect');
      });

      it('refuses a replaced element as stale, and rebinds to its identical replacement', async (t) => {
        if (lacking(t, 'act')) return;
        const bound = await s.helper.call('element_act', {
          window: s.fixtureWindow,
          selector: sel('replaceable'),
          action: 'invoke',
          check_only: true,
        });
        const ref = bound.element_ref as ElementRef;
        assert.ok(ref);
        const replaced = await c.actRef(ref, 'invoke');
        assert.equal(replaced.outcome, 'completed');
        await c.find({ name: 'Replacements: 1' }, { timeout_ms: 2000 });
        const stale = await c.actRef(ref, 'invoke');
        assert.equal(stale.outcome, 'refused');
        assert.equal(stale.refusal?.code, 'stale_element');
        const rebound = await c.actRef(ref, 'invoke', { rebind: true });
        assert.equal(rebound.outcome, 'completed', JSON.stringify(rebound.refusal));
        assert.equal(rebound.rebound, true);
        assert.equal((await c.find({ name: 'Replacements: 2' }, { timeout_ms: 2000 })).match_count, 1);
      });

      it('re-reads a bound element, and answers stale once it changed', async (t) => {
        if (lacking(t, 'act')) return;
        const bound = await s.helper.call('element_act', {
          window: s.fixtureWindow,
          selector: sel('clicks'),
          action: 'invoke',
          check_only: true,
        });
        const ref = bound.element_ref as ElementRef;
        const now = await s.helper.call('element_resolve', { element: ref });
        assert.equal(now.element.key, ref.key);
        await c.act(sel('counter'), 'invoke');
        await c.find({ ...sel('clicks'), name_contains: ':' }, { timeout_ms: 1000 });
        await rejectsWith(s.helper.call('element_resolve', { element: ref }), 'stale_element');
      });

      it('refuses a renamed element as stale (the digest binds the name)', async () => {
        const bound = await s.helper.call('element_act', {
          window: s.fixtureWindow,
          selector: sel('counter'),
          action: 'invoke',
          check_only: true,
        });
        const ref = { ...(bound.element_ref as ElementRef), digest: 'not-the-digest' };
        const r = await c.actRef(ref, 'invoke');
        assert.equal(r.refusal?.code, 'stale_element');
      });

      it('refuses a recycled process identity as stale_process', async () => {
        const bound = await s.helper.call('element_act', {
          window: s.fixtureWindow,
          selector: sel('counter'),
          action: 'invoke',
          check_only: true,
        });
        const ref = bound.element_ref as ElementRef;
        const r = await c.actRef({ ...ref, process: { ...ref.process, process_start: '1' } }, 'invoke');
        assert.equal(r.refusal?.code, 'stale_process');
      });

      it('answers excluded applications with excluded_target', async (t) => {
        if (s.lacks.process_identity !== undefined) t.diagnostic(`# exclusion by pid not tried: ${s.lacks.process_identity}`);
        else {
          await s.helper.call('configure', { exclude: { pids: [s.fixturePid] } });
          try {
            await rejectsWith(c.read(), 'excluded_target');
            const l = await s.helper.call('window_list', {});
            assert.ok(!l.windows.some((w) => w.pid === s.fixturePid));
            const r = await c.act(sel('counter'), 'invoke');
            assert.equal(r.refusal?.code, 'excluded_target');
          } finally {
            await s.helper.call('configure', { exclude: {} });
          }
        }
        const app = (await s.helper.call('window_list', {})).windows.find((w) => w.window === s.fixtureWindow)?.app ?? '';
        for (const pattern of [app.toUpperCase(), `/^${app.slice(0, 3).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`]) {
          await s.helper.call('configure', { exclude: { apps: [pattern] } });
          try {
            await rejectsWith(c.read(), 'excluded_target');
          } finally {
            await s.helper.call('configure', { exclude: {} });
          }
        }
        assert.ok((await c.read({ max_nodes: 5 })).node_count > 0, 'reading works again once the exclusion is lifted');
      });

      it('drives a modal dialog and then answers its closed window gone', async (t) => {
        if (lacking(t, 'act')) return;
        await c.act(sel('open_dialog'), 'invoke');
        let dialog: string | undefined;
        for (let i = 0; i < 40 && dialog === undefined; i++) {
          dialog = (await s.helper.call('window_list', {})).windows.find((w) => w.title === 'Confirm')?.window;
          if (dialog === undefined) await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(dialog, 'the dialog is listed as a window');
        const ok = await s.helper.call('element_act', { window: dialog, selector: { role: 'button', name: 'OK' }, action: 'invoke' });
        assert.equal(ok.outcome, 'completed');
        assert.equal((await c.find({ name: 'Status: dialog OK' }, { timeout_ms: 3000 })).match_count, 1);
        let gone: unknown;
        for (let i = 0; i < 20; i++) {
          try {
            await s.helper.call('window_read', { window: dialog });
            await new Promise((r) => setTimeout(r, 100));
          } catch (error) {
            gone = error;
            break;
          }
        }
        assert.ok(gone instanceof OverseerError && gone.code === 'window_gone', String(gone));
      });
    });

    describe('faults and bad input', () => {
      it('answers a frozen application within timeout_ms plus grace, and is never wedged', async (t) => {
        if (lacking(t, 'act')) return;
        await c.act(sel('freeze'), 'invoke');
        await new Promise((r) => setTimeout(r, 200));
        const t0 = Date.now();
        let frozen: Awaited<ReturnType<typeof c.read>> | undefined;
        try {
          frozen = await c.read({ timeout_ms: 1000 });
        } catch (error) {
          // A backend that backs off may already know it stopped answering (the act's own read-back waited for it).
          if (!(s.lacks.backs_off === undefined && error instanceof OverseerError && error.code === 'application_unresponsive')) throw error;
          assert.equal(error.info.data?.['pid'], s.fixturePid, 'the answer names the application');
        }
        const took = Date.now() - t0;
        assert.ok(took < 1000 + TIMEOUT_GRACE_MS, `answered in ${took} ms`);
        if (frozen !== undefined) {
          assert.ok(frozen.truncated_by.includes('timeout'), JSON.stringify(frozen.truncated_by));
          assert.ok(frozen.notes.length > 0);
        }
        if (s.lacks.backs_off === undefined) {
          // Once it has not answered for a second, it is left alone: answered at once, by name, never waited for again.
          const t2 = Date.now();
          await rejectsWith(c.find(sel('counter'), { timeout_ms: 500 }), 'application_unresponsive');
          await rejectsWith(c.read({ timeout_ms: 1000 }), 'application_unresponsive');
          assert.ok(Date.now() - t2 < 300, `answered in ${Date.now() - t2} ms`);
        } else {
          const undecided = await c.find(sel('counter'), { timeout_ms: 500 });
          assert.equal(undecided.searched_whole_window, false, 'a silent application is never answered "not found"');
          assert.ok(undecided.reason !== undefined && undecided.truncated_by.includes('timeout'), JSON.stringify(undecided));
        }
        const listed = await s.helper.call('window_list', {});
        if (s.lacks.listing_asks_app === undefined) {
          assert.ok(listed.truncated_by.includes('timeout') && listed.total_known === false, JSON.stringify(listed.truncated_by));
          assert.ok(
            listed.notes.some((n) => n.includes(String(s.fixturePid))),
            'the listing names the application that did not answer',
          );
        } else
          assert.ok(
            listed.windows.some((w) => w.window === s.fixtureWindow),
            `${s.lacks.listing_asks_app}: the frozen window is still listed`,
          );
        assert.ok(listed.windows.some((w) => w.window === s.otherWindow));
        const t1 = Date.now();
        const other = await s.helper.call('window_read', { window: s.otherWindow, timeout_ms: 3000 });
        assert.ok(other.node_count > 10 && !other.truncated_by.includes('timeout'), 'another application reads normally meanwhile');
        assert.ok(Date.now() - t1 < 2000);
        await new Promise((r) => setTimeout(r, s.freezeMs));
        // A backend that backs off reads it again once its probe heard the application (after 1, 2, 4… s).
        let thawed: Awaited<ReturnType<typeof c.read>> | undefined;
        for (let i = 0; i < 60 && thawed === undefined; i++) {
          try {
            thawed = await c.read({ timeout_ms: 5000 });
          } catch (error) {
            if (!(error instanceof OverseerError && error.code === 'application_unresponsive')) throw error;
            await new Promise((r) => setTimeout(r, 250));
          }
        }
        assert.ok(thawed !== undefined, 'read again once the application answers');
        assert.deepEqual(
          thawed.truncated_by.filter((t) => t === 'timeout'),
          [],
        );
      });

      it('answers malformed JSON, unknown methods, wrong types and huge strings, and keeps serving', async () => {
        const lines: string[] = [];
        const onData = (b: Buffer): void => {
          lines.push(...b.toString('utf8').split('\n').filter(Boolean));
        };
        s.helper.child.stdout?.on('data', onData);
        s.helper.child.stdin?.write('{"jsonrpc":"2.0","id":"x1","method":\n');
        s.helper.child.stdin?.write(`${'A'.repeat(5 * 1024 * 1024)}\n`);
        // Both answers, however long 5 MB takes to travel (over ssh on a loaded machine, more than 300 ms).
        const refused = (): number =>
          lines
            .map((l) => JSON.parse(l) as { id: unknown; error?: { data?: { code?: string } } })
            .filter((f) => f.id === null && f.error?.data?.code === 'invalid_argument').length;
        for (let waited = 0; waited < 10_000 && refused() < 2; waited += 50) await new Promise((r) => setTimeout(r, 50));
        s.helper.child.stdout?.off('data', onData);
        assert.ok(refused() >= 2, lines.join('\n').slice(0, 500));
        await rejectsWith(s.helper.call('no_such_method' as 'hello', {}), 'invalid_argument');
        await rejectsWith(s.helper.call('window_read', { max_nodes: 'many' } as never), 'invalid_argument');
        await rejectsWith(s.helper.call('element_find', { selector: { name: 'x'.repeat(2_000_000) } }), 'invalid_argument');
        await rejectsWith(s.helper.call('element_act', { selector: { name: 'a' }, action: 'set_value', text: null } as never), 'invalid_argument');
        const h = await s.helper.call('hello', {});
        assert.equal(h.backend, s.backend);
      });

      it('stops a cancelled request promptly', async () => {
        const lines: string[] = [];
        const onData = (b: Buffer): void => {
          lines.push(...b.toString('utf8').split('\n').filter(Boolean));
        };
        s.helper.child.stdout?.on('data', onData);
        const t0 = Date.now();
        s.helper.child.stdin?.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: 'cancel-me', method: 'element_find', params: { window: s.fixtureWindow, selector: { name: 'Never appears' }, timeout_ms: 15000 } })}\n`,
        );
        await new Promise((r) => setTimeout(r, 300));
        s.helper.child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 'cancel-me' } })}\n`);
        for (let i = 0; i < 50 && !lines.some((l) => l.includes('"cancel-me"')); i++) await new Promise((r) => setTimeout(r, 50));
        s.helper.child.stdout?.off('data', onData);
        assert.ok(
          lines.some((l) => l.includes('"cancel-me"')),
          'the cancelled request was answered',
        );
        assert.ok(Date.now() - t0 < 3000, `answered ${Date.now() - t0} ms after the request, not after its 15 s wait`);
      });

      it('answers a vanished application with window_gone and stale codes, never a crash', async () => {
        const bound = await s.helper.call('element_act', {
          window: s.otherWindow,
          selector: sel('counter'),
          action: 'invoke',
          check_only: true,
        });
        await s.killOther();
        await new Promise((r) => setTimeout(r, 200));
        await rejectsWith(s.helper.call('window_read', { window: s.otherWindow }), 'window_gone');
        const r = await c.actRef(bound.element_ref as ElementRef, 'invoke');
        assert.equal(r.outcome, 'refused');
        assert.equal(r.refusal?.code, 'stale_process');
        assert.ok(!(await s.helper.call('window_list', {})).windows.some((w) => w.window === s.otherWindow));
      });

      it('exits when its stdin closes', async () => {
        const code = await s.helper.close();
        assert.equal(code, 0);
      });
    });
  });
}
