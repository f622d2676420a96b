import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HelperActParams, HelperActResult, fail, rect, type ElementRef, type Selector } from '../../protocol/index.js';
import { MAX_CANDIDATES, act, stillArriving } from './act.js';
import { DispatchError } from './backend.js';
import { FakeBackend, type FakeElement } from '../testing/fakeBackend.js';

/** A settings window with one element per kind of action, two identical OK buttons and a combo box. */
function settings(): FakeBackend {
  const on = { enabled: true };
  return new FakeBackend(
    'root',
    {
      root: { role: 'window', name: 'Settings', children: ['form', 'footer'] },
      form: { role: 'group', name: 'Form', children: ['name', 'agree', 'volume', 'password', 'advanced', 'fruits', 'color', 'far', 'save', 'apply'] },
      name: {
        role: 'edit',
        name: 'Name',
        automationId: 'name',
        className: 'Entry',
        value: 'Ann',
        patterns: ['value', 'text', 'focus'],
        state: { ...on, focused: false },
      },
      agree: { role: 'check_box', name: 'Agree', patterns: ['toggle'], state: { ...on, checked: false } },
      volume: { role: 'slider', name: 'Volume', value: '5', patterns: ['range_value'], state: on },
      password: { role: 'edit', name: 'Password', value: 'hunter2', patterns: ['value'], state: { ...on, password: true } },
      advanced: { role: 'tree_item', name: 'Advanced', patterns: ['expand_collapse'], state: { ...on, expanded: false } },
      fruits: { role: 'list', name: 'Fruits', children: ['apple', 'pear'] },
      apple: { role: 'list_item', name: 'Apple', patterns: ['selection_item'], state: { ...on, selected: true } },
      pear: { role: 'list_item', name: 'Pear', patterns: ['selection_item'], state: { ...on, selected: false } },
      color: { role: 'combo_box', name: 'Color', value: 'Red', patterns: ['expand_collapse'], state: { ...on, expanded: false }, children: ['colors'] },
      colors: { role: 'list', name: 'Colors', children: ['red', 'blue'] },
      red: { role: 'list_item', name: 'Red', patterns: ['selection_item'], state: { ...on, selected: true } },
      blue: { role: 'list_item', name: 'Blue', patterns: ['selection_item'], state: { ...on, selected: false } },
      far: { role: 'list_item', name: 'Far', patterns: ['scroll_item'], state: { ...on, offscreen: true } },
      save: { role: 'button', name: 'Save', className: 'Button', patterns: ['invoke'], actions: ['click'], state: on },
      apply: { role: 'button', name: 'Apply', patterns: ['invoke'], state: { enabled: false } },
      footer: { role: 'group', name: 'Footer', children: ['ok1', 'ok2'] },
      ok1: { role: 'button', name: 'OK', patterns: ['invoke'], state: on },
      ok2: { role: 'button', name: 'OK', patterns: ['invoke'], state: on },
    },
    { window: 'w1', title: 'Settings', app: 'settings', pid: 100, process_start: '555', rect: rect(0, 0, 800, 600), foreground: true },
  );
}

/** Runs element_act as the helper service would: params and answer both checked against the protocol. */
async function run(backend: FakeBackend, params: HelperActParams): Promise<HelperActResult> {
  const result = await act(backend, HelperActParams.parse(params), new AbortController().signal);
  HelperActResult.parse(result);
  return result;
}

/** The bound reference (with its shown state) that a check_only act answers, as a target or an approval card carries it. */
async function refTo(backend: FakeBackend, selector: Selector, action: HelperActParams['action'] = 'invoke', text?: string): Promise<ElementRef> {
  const r = await run(backend, { selector, action, check_only: true, ...(text !== undefined ? { text } : {}) });
  assert.equal(r.outcome, 'pending', JSON.stringify(r.refusal));
  assert.ok(r.element_ref);
  return r.element_ref;
}

const nothingDispatched = (b: FakeBackend): void => assert.deepEqual(b.calls, [], 'nothing was dispatched');
const dispatchedTo = (b: FakeBackend): string[] => b.calls.map((c) => c.key);
/** An element with the Save button's meaning, for replacements and duplicates. */
const saveCopy = (): FakeElement => ({ role: 'button', name: 'Save', className: 'Button', patterns: ['invoke'], state: { enabled: true } });

describe('element_act by bound reference', () => {
  it('acts on the element when process, window and digest still hold', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    const r = await run(b, { element: ref, action: 'invoke' });
    assert.equal(r.outcome, 'completed');
    assert.deepEqual(dispatchedTo(b), ['save']);
    assert.equal(r.rebound, undefined);
  });

  it('refuses stale_process when the process exited or its pid was recycled', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.running = [{ pid: 100, process_start: '999' }];
    b.window = { ...b.window, process_start: '999' };
    const r = await run(b, { element: ref, action: 'invoke' });
    assert.equal(r.outcome, 'refused');
    assert.equal(r.refusal?.code, 'stale_process');
    nothingDispatched(b);
  });

  it('refuses window_gone when the window is gone', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.windowOpen = false;
    const r = await run(b, { element: ref, action: 'invoke' });
    assert.equal(r.refusal?.code, 'window_gone');
    nothingDispatched(b);
  });

  it('refuses stale_window when the window id now belongs to another process', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.window = { ...b.window, pid: 200, process_start: '777' };
    b.running.push({ pid: 200, process_start: '777' }); // the observed process still runs
    const r = await run(b, { element: ref, action: 'invoke' });
    assert.equal(r.refusal?.code, 'stale_window');
    nothingDispatched(b);
  });

  it('refuses stale_element when the element changed meaning (the digest differs)', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.set('save', { name: 'Delete' });
    const r = await run(b, { element: ref, action: 'invoke' });
    assert.equal(r.refusal?.code, 'stale_element');
    assert.deepEqual(r.refusal.data?.['now'], { role: 'button', name: 'Delete' });
    nothingDispatched(b);
  });

  it('refuses stale_element when the element moved under other ancestors', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.remove('save');
    b.insert('footer', 'save', saveCopy());
    const r = await run(b, { element: ref, action: 'invoke' });
    assert.equal(r.refusal?.code, 'stale_element');
    nothingDispatched(b);
  });

  it('refuses stale_element when the element is gone and rebind was not asked', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.replace('save', 'save#2');
    const r = await run(b, { element: ref, action: 'invoke' });
    assert.equal(r.refusal?.code, 'stale_element');
    assert.match(r.refusal.detail, /gone/);
    nothingDispatched(b);
  });

  it('walks the window for an element a fresh read has not reached and cannot fetch', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.readMode = 'lazy';
    b.fetchable = false;
    const r = await run(b, { element: ref, action: 'invoke' });
    assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal));
    assert.deepEqual(dispatchedTo(b), ['save']);
  });

  it('resolves an unchanged element that a fresh read knows only by fetching it alone', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.readMode = 'lazy'; // fetch gives the element and its parent's key, not its ancestors
    const r = await run(b, { element: ref, action: 'invoke' });
    assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal));
    assert.deepEqual(dispatchedTo(b), ['save']);
  });
});

describe('element_act rebind (docs/tools.md#rebind)', () => {
  it('rebinds to the unique replacement with the same automation_id, semantics and ancestors', async () => {
    const b = settings();
    const ref = await refTo(b, { automation_id: 'name' }, 'set_value', 'Bob');
    b.replace('name', 'name#2');
    const r = await run(b, { element: ref, action: 'set_value', text: 'Bob', rebind: true });
    assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal));
    assert.equal(r.rebound, true);
    assert.equal(r.element_ref?.key, 'name#2');
    assert.deepEqual(dispatchedTo(b), ['name#2']);
  });

  it('rebinds without an automation_id on a unique name, role, class and ancestor match', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.replace('save', 'save#2');
    const r = await run(b, { element: ref, action: 'invoke', rebind: true });
    assert.equal(r.rebound, true);
    assert.deepEqual(dispatchedTo(b), ['save#2']);
  });

  it('refuses stale_element when the replacement has another automation_id', async () => {
    const b = settings();
    const ref = await refTo(b, { automation_id: 'name' }, 'set_value', 'Bob');
    b.replace('name', 'name#2', { automationId: 'nickname' });
    const r = await run(b, { element: ref, action: 'set_value', text: 'Bob', rebind: true });
    assert.equal(r.refusal?.code, 'stale_element');
    assert.equal(r.refusal.data?.['match_count'], 0);
    nothingDispatched(b);
  });

  it('refuses stale_element when the replacement has another class or sits under other ancestors', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.replace('save', 'save#2', { className: 'LinkButton' });
    assert.equal((await run(b, { element: ref, action: 'invoke', rebind: true })).refusal?.code, 'stale_element');
    b.remove('save#2');
    b.insert('footer', 'save#3', saveCopy());
    assert.equal((await run(b, { element: ref, action: 'invoke', rebind: true })).refusal?.code, 'stale_element');
    nothingDispatched(b);
  });

  it('refuses stale_element when the element kept its key but changed meaning', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.set('save', { name: 'Delete' });
    const r = await run(b, { element: ref, action: 'invoke', rebind: true });
    assert.equal(r.refusal?.code, 'stale_element');
    nothingDispatched(b);
  });

  it('refuses stale_window when the window title changed', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.replace('save', 'save#2');
    b.window = { ...b.window, title: 'Settings (2)' };
    const r = await run(b, { element: ref, action: 'invoke', rebind: true });
    assert.equal(r.refusal?.code, 'stale_window');
    assert.deepEqual(r.refusal.data, { was: 'Settings', now: 'Settings (2)' });
    nothingDispatched(b);
  });

  it('refuses stale_window when the window moved or was resized', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.replace('save', 'save#2');
    b.window = { ...b.window, rect: rect(10, 0, 800, 600) };
    assert.equal((await run(b, { element: ref, action: 'invoke', rebind: true })).refusal?.code, 'stale_window');
    b.window = { ...b.window, rect: rect(0, 0, 800, 601) };
    assert.equal((await run(b, { element: ref, action: 'invoke', rebind: true })).refusal?.code, 'stale_window');
    nothingDispatched(b);
  });

  it('refuses incomplete_scan when the rescan was cut', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.replace('save', 'save#2');
    b.cuts = ['provider_error'];
    const r = await run(b, { element: ref, action: 'invoke', rebind: true });
    assert.equal(r.refusal?.code, 'incomplete_scan');
    assert.deepEqual(r.refusal.data?.['truncated_by'], ['provider_error']);
    nothingDispatched(b);
  });

  it('refuses ambiguous when several elements have the same meaning', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.replace('save', 'save#2');
    b.insert('form', 'save#3', saveCopy());
    const r = await run(b, { element: ref, action: 'invoke', rebind: true });
    assert.equal(r.refusal?.code, 'ambiguous');
    assert.equal(r.refusal.data?.['match_count'], 2);
    nothingDispatched(b);
  });

  it('refuses stale_element when nothing with the same meaning is left', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Save' });
    b.remove('save');
    const r = await run(b, { element: ref, action: 'invoke', rebind: true });
    assert.equal(r.refusal?.code, 'stale_element');
    assert.equal(r.refusal.data?.['match_count'], 0);
    nothingDispatched(b);
  });
});

describe('element_act by selector', () => {
  it('refuses an ambiguous selector and lists the candidates', async () => {
    const b = settings();
    const r = await run(b, { selector: { role: 'button', name: 'OK' }, action: 'invoke' });
    assert.equal(r.refusal?.code, 'ambiguous');
    assert.equal(r.refusal.data?.['match_count'], 2);
    const candidates = r.refusal.data?.['candidates'] as { key: string; nth: number; role: string; name?: string }[];
    assert.deepEqual(
      candidates.map((c) => [c.key, c.nth, c.role, c.name]),
      [
        ['ok1', 0, 'button', 'OK'],
        ['ok2', 1, 'button', 'OK'],
      ],
    );
    assert.equal(r.refusal.data?.['truncated'], false);
    // Their bound identities, in the same order, for the supervisor to issue targets from; and the window they are in.
    assert.deepEqual(
      r.candidate_refs?.map((ref) => ref.key),
      ['ok1', 'ok2'],
    );
    assert.equal(r.window?.window, 'w1');
    nothingDispatched(b);
  });

  it('lists at most MAX_CANDIDATES candidates of many, saying how many matched and that the list is cut', async () => {
    const b = settings();
    for (let i = 0; i < 14; i++) b.insert('footer', `more${i}`, { role: 'button', name: 'OK', patterns: ['invoke'], state: { enabled: true } });
    const r = await run(b, { selector: { name: 'OK' }, action: 'invoke' });
    assert.equal(r.refusal?.code, 'ambiguous');
    assert.equal(r.refusal.data?.['match_count'], 16);
    assert.equal((r.refusal.data?.['candidates'] as unknown[]).length, MAX_CANDIDATES);
    assert.equal(r.refusal.data?.['truncated'], true);
    assert.equal(r.candidate_refs?.length, MAX_CANDIDATES);
    nothingDispatched(b);
  });

  it('picks the nth match in document order', async () => {
    const b = settings();
    const r = await run(b, { selector: { name: 'OK', nth: 1 }, action: 'invoke' });
    assert.equal(r.outcome, 'completed');
    assert.deepEqual(dispatchedTo(b), ['ok2']);
  });

  it('refuses not_found when nth is beyond the matches', async () => {
    const b = settings();
    const r = await run(b, { selector: { name: 'OK', nth: 2 }, action: 'invoke' });
    assert.equal(r.refusal?.code, 'not_found');
    assert.equal(r.refusal.data?.['match_count'], 2);
    nothingDispatched(b);
  });

  it('refuses not_found after searching the whole window', async () => {
    const b = settings();
    const r = await run(b, { selector: { name: 'Cancel' }, action: 'invoke' });
    assert.equal(r.refusal?.code, 'not_found');
    assert.equal(r.refusal.data?.['searched_whole_window'], true);
    nothingDispatched(b);
  });

  it('refuses incomplete_scan when a cut scan could hide another match, with or without nth', async () => {
    const b = settings();
    b.cuts = ['timeout'];
    const one = await run(b, { selector: { name: 'Save' }, action: 'invoke' });
    assert.equal(one.refusal?.code, 'incomplete_scan');
    assert.deepEqual(one.refusal.data?.['truncated_by'], ['timeout']);
    assert.equal((await run(b, { selector: { name: 'OK', nth: 0 }, action: 'invoke' })).refusal?.code, 'incomplete_scan');
    nothingDispatched(b);
  });

  it('refuses unreadable when an element did not answer a field the selector names', async () => {
    const b = settings();
    b.set('agree', { unread: ['automation_id'] });
    const r = await run(b, { selector: { automation_id: 'name' }, action: 'focus' });
    assert.equal(r.refusal?.code, 'unreadable');
    nothingDispatched(b);
  });
});

describe('element_act checks before dispatch', () => {
  it('refuses not_enabled for a disabled element', async () => {
    const b = settings();
    const r = await run(b, { selector: { name: 'Apply' }, action: 'invoke' });
    assert.equal(r.refusal?.code, 'not_enabled');
    assert.equal(r.action_call_made, false);
    nothingDispatched(b);
  });

  it('refuses pattern_unsupported and lists the supported patterns', async () => {
    const b = settings();
    const r = await run(b, { selector: { name: 'Save' }, action: 'toggle' });
    assert.equal(r.refusal?.code, 'pattern_unsupported');
    assert.deepEqual(r.refusal.data, { supported: ['invoke'], actions: ['click'] });
    nothingDispatched(b);
  });

  it('check_only dispatches nothing and answers pending with the element_ref and its shown state', async () => {
    const b = settings();
    const r = await run(b, { selector: { name: 'Agree' }, action: 'toggle', check_only: true });
    assert.equal(r.outcome, 'pending');
    assert.equal(r.action_call_made, false);
    assert.equal(r.element_ref?.key, 'agree');
    assert.equal(r.element_ref.window_title, 'Settings');
    assert.deepEqual(r.element_ref.ancestors, ['window:Settings', 'group:Form']);
    assert.equal(r.element_ref.shown?.checked, false);
    assert.equal(r.element_ref.shown.enabled, true);
    assert.equal(typeof r.element_ref.shown.value_hash, 'string');
    nothingDispatched(b);
  });
});

describe('element_act approval binding (the state the card showed)', () => {
  const cases: { field: string; selector: Selector; action: HelperActParams['action']; text?: string; change: (b: FakeBackend) => void }[] = [
    { field: 'value', selector: { name: 'Name' }, action: 'set_value', text: 'Bob', change: (b) => b.set('name', { value: 'Eve' }) },
    { field: 'checked', selector: { name: 'Agree' }, action: 'toggle', change: (b) => b.set('agree', { state: { checked: true } }) },
    { field: 'selected', selector: { name: 'Pear' }, action: 'select', change: (b) => b.set('pear', { state: { selected: true } }) },
    { field: 'expanded', selector: { name: 'Advanced' }, action: 'collapse', change: (b) => b.set('advanced', { state: { expanded: true } }) },
    { field: 'enabled', selector: { name: 'Save' }, action: 'invoke', change: (b) => b.set('save', { state: { enabled: false } }) },
  ];
  for (const c of cases) {
    it(`refuses stale_element naming ${c.field} when the element no longer shows the approved ${c.field}`, async () => {
      const b = settings();
      const ref = await refTo(b, c.selector, c.action, c.text);
      c.change(b);
      const r = await run(b, { element: ref, action: c.action, ...(c.text !== undefined ? { text: c.text } : {}) });
      assert.equal(r.refusal?.code, 'stale_element');
      assert.deepEqual(r.refusal.data?.['changed'], [c.field]);
      nothingDispatched(b);
    });
  }

  it('dispatches when the element still shows the approved state', async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Agree' }, 'toggle');
    const r = await run(b, { element: ref, action: 'toggle' });
    assert.equal(r.outcome, 'completed');
    assert.deepEqual(dispatchedTo(b), ['agree']);
  });

  it("binds a password field's text by a keyed hash only, and still notices it changed", async () => {
    const b = settings();
    const ref = await refTo(b, { name: 'Password' }, 'set_value', 'new-secret');
    assert.ok(!JSON.stringify(ref).includes('hunter2'));
    b.set('password', { value: 'hunter3' });
    const r = await run(b, { element: ref, action: 'set_value', text: 'new-secret' });
    assert.equal(r.refusal?.code, 'stale_element');
    assert.deepEqual(r.refusal.data?.['changed'], ['value']);
    assert.ok(!JSON.stringify(r).includes('hunter'), "the field's text never leaves");
    nothingDispatched(b);
  });
});

describe('element_act dispatch outcomes', () => {
  it('answers completed with the path when the call returned ok', async () => {
    const b = settings();
    b.answer = { ok: true, detail: 'clicked through Action' };
    const r = await run(b, { selector: { name: 'Save' }, action: 'invoke' });
    assert.equal(r.outcome, 'completed');
    assert.equal(r.action_call_made, true);
    assert.equal(r.path, 'fake:invoke');
    assert.equal(r.verification, 'not_checked');
    assert.equal(r.verification_detail, 'clicked through Action');
    assert.equal(r.after?.key, 'save');
    assert.deepEqual(r.after_read, { status: 'full' });
  });

  it('answers failed with action_call_made when the provider said it did not do it', async () => {
    const b = settings();
    b.answer = { ok: false };
    const r = await run(b, { selector: { name: 'Save' }, action: 'invoke' });
    assert.equal(r.outcome, 'failed');
    assert.equal(r.action_call_made, true);
    assert.equal(r.error?.code, 'internal');
    assert.equal(r.after, undefined);
  });

  it('answers unknown with a timeout when the call may or may not have happened', async () => {
    const b = settings();
    b.answer = { throws: new DispatchError('no answer within 5000 ms', 'unknown', 'unknown') };
    const r = await run(b, { selector: { name: 'Save' }, action: 'invoke' });
    assert.equal(r.outcome, 'unknown');
    assert.equal(r.action_call_made, 'unknown');
    assert.equal(r.error?.code, 'timeout');
  });

  it('answers failed when the call errored before it was made', async () => {
    const b = settings();
    b.answer = { throws: new DispatchError('no such method', false, 'failed') };
    const r = await run(b, { selector: { name: 'Save' }, action: 'invoke' });
    assert.equal(r.outcome, 'failed');
    assert.equal(r.action_call_made, false);
    assert.equal(r.error?.code, 'internal');
  });

  it('answers refused when the backend refuses with a typed error', async () => {
    const b = settings();
    b.answer = { throws: fail('stale_element', 'the object went defunct') };
    const r = await run(b, { selector: { name: 'Save' }, action: 'invoke' });
    assert.equal(r.outcome, 'refused');
    assert.equal(r.refusal?.code, 'stale_element');
    assert.equal(r.action_call_made, false);
  });

  it('answers action_call_made false when nothing needed doing', async () => {
    const b = settings();
    b.set('advanced', { state: { expanded: true } });
    b.answer = { ok: true, noop: true };
    const r = await run(b, { selector: { name: 'Advanced' }, action: 'expand' });
    assert.equal(r.outcome, 'completed');
    assert.equal(r.action_call_made, false);
    assert.equal(r.verification, 'verified');
  });
});

describe('element_act read-back verification', () => {
  const verified = async (b: FakeBackend, params: HelperActParams): Promise<HelperActResult> => {
    const r = await run(b, params);
    assert.equal(r.outcome, 'completed', JSON.stringify(r.refusal ?? r.error));
    assert.equal(r.verification, 'verified');
    return r;
  };

  it('verifies set_value on a value pattern by the exact text', async () => {
    const r = await verified(settings(), { selector: { name: 'Name' }, action: 'set_value', text: 'Bob' });
    assert.equal(r.after?.value, 'Bob');
  });

  it('answers mismatch when the field shows other text than was set', async () => {
    const b = settings();
    b.effect = (f, call) => f.set(call.key, { value: (call.text ?? '').toLowerCase() });
    const r = await run(b, { selector: { name: 'Name' }, action: 'set_value', text: 'Bob' });
    assert.equal(r.verification, 'mismatch');
    assert.equal(r.after?.value, 'bob');
  });

  it('verifies set_value on a range_value (and a numeric text on value + range_value) numerically', async () => {
    const b = settings();
    b.effect = (f, call) => f.set(call.key, { value: String(Number(call.text)) });
    await verified(b, { selector: { name: 'Volume' }, action: 'set_value', text: '7.0' });
    b.insert('form', 'copies', { role: 'spinner', name: 'Copies', value: '1', patterns: ['value', 'range_value'], state: { enabled: true } });
    b.effect = (f, call) => f.set(call.key, { value: `${call.text ?? ''}.00` });
    await verified(b, { selector: { name: 'Copies' }, action: 'set_value', text: '3' });
  });

  it('clears a field with "" and verifies the field is empty', async () => {
    const b = settings();
    const r = await verified(b, { selector: { name: 'Name' }, action: 'set_value', text: '' });
    assert.equal(r.after?.value, '');
  });

  it('does not call a spin button that shows 0 cleared: "" is text, not the number 0', async () => {
    const b = settings();
    b.insert('form', 'copies', { role: 'spinner', name: 'Copies', value: '3', patterns: ['value', 'range_value'], state: { enabled: true } });
    b.effect = (f, call) => f.set(call.key, { value: '0' });
    const r = await run(b, { selector: { name: 'Copies' }, action: 'set_value', text: '' });
    assert.equal(r.outcome, 'completed');
    assert.equal(r.verification, 'mismatch');
  });

  it('refuses "" for a slider (only a range value) before anything is dispatched or approved', async () => {
    const b = settings();
    for (const check_only of [true, false]) {
      const r = await run(b, { selector: { name: 'Volume' }, action: 'set_value', text: '', check_only });
      assert.equal(r.outcome, 'refused');
      assert.equal(r.refusal?.code, 'invalid_argument');
      assert.equal(r.target?.value, '5');
    }
    nothingDispatched(b);
  });

  it('verifies toggle, expand and collapse by the changed state', async () => {
    const b = settings();
    assert.equal((await verified(b, { selector: { name: 'Agree' }, action: 'toggle' })).after?.state.checked, true);
    await verified(b, { selector: { name: 'Advanced' }, action: 'expand' });
    await verified(b, { selector: { name: 'Advanced' }, action: 'collapse' });
  });

  it('verifies select by selected or checked', async () => {
    const b = settings();
    await verified(b, { selector: { name: 'Pear' }, action: 'select' });
    b.insert('form', 'radio', { role: 'radio_button', name: 'Large', patterns: ['selection_item'], state: { enabled: true, checked: false } });
    b.effect = (f, call) => f.set(call.key, { state: { checked: true } });
    await verified(b, { selector: { name: 'Large' }, action: 'select' });
  });

  it("verifies selecting a combo box item by the combo's value, not the item's state", async () => {
    const b = settings();
    b.effect = (f, call) => {
      f.set(call.key, { state: { selected: true } });
      f.set('color', { value: 'Blue' });
    };
    await verified(b, { selector: { name: 'Blue' }, action: 'select' });
    const c = settings(); // the item says selected but the combo still shows Red
    const r = await run(c, { selector: { name: 'Blue' }, action: 'select' });
    assert.equal(r.verification, 'mismatch');
    assert.equal(r.after?.state.selected, true);
  });

  it('verifies focus and scroll_into_view', async () => {
    const b = settings();
    await verified(b, { selector: { name: 'Name' }, action: 'focus' });
    await verified(b, { selector: { name: 'Far' }, action: 'scroll_into_view' });
  });

  it('leaves invoke not_checked but reads the element back', async () => {
    const b = settings();
    const r = await run(b, { selector: { name: 'Save' }, action: 'invoke' });
    assert.equal(r.verification, 'not_checked');
    assert.deepEqual(r.after_read, { status: 'full' });
    assert.equal(b.readsSinceDispatch, 1, 'one read suffices when nothing can be compared');
  });

  it('never compares a password field and never lets its text out', async () => {
    const b = settings();
    const r = await run(b, { selector: { name: 'Password' }, action: 'set_value', text: 'new-secret' });
    assert.equal(r.outcome, 'completed');
    assert.equal(r.verification, 'not_checked');
    assert.match(r.verification_detail ?? '', /password/);
    assert.equal(r.text, '••••••');
    assert.deepEqual(b.calls, [{ key: 'password', action: 'set_value', text: 'new-secret' }]);
    assert.ok(!JSON.stringify(r).includes('secret') && !JSON.stringify(r).includes('hunter2'));
  });

  it('reports after_read partial with the fields the element did not answer', async () => {
    const b = settings();
    b.effect = (f, call) => f.set(call.key, { unread: ['rect'] });
    const r = await run(b, { selector: { name: 'Save' }, action: 'invoke' });
    assert.deepEqual(r.after_read, { status: 'partial', unread: ['rect'] });
  });
});

describe('element_act settle schedule', () => {
  it('verifies an effect that shows only on the second read', async () => {
    const b = settings();
    b.timing = { onRead: 2 };
    const r = await run(b, { selector: { name: 'Agree' }, action: 'toggle' });
    assert.equal(r.verification, 'verified');
    assert.equal(b.readsSinceDispatch, 2, 'read again until the effect showed, then stopped');
  });

  it('answers mismatch for an effect that never shows, after the whole schedule', async () => {
    const b = settings();
    b.timing = 'never';
    const r = await run(b, { selector: { name: 'Agree' }, action: 'toggle' });
    assert.equal(r.outcome, 'completed');
    assert.equal(r.verification, 'mismatch');
    assert.equal(b.readsSinceDispatch, 5);
    assert.equal(r.after?.state.checked, false);
  });

  it('reads a typed value on while it arrives, past the schedule, and verifies it whole', async () => {
    const b = settings();
    b.typedPlan = 'typed: fake keyboard';
    // A loaded browser takes the keys slowly: "B" at once, then a character every third read.
    b.effect = (f, call) => f.set(call.key, { value: (call.text ?? '').slice(0, 1) });
    b.onRead = (f, read) => {
      if (read % 3 === 0) f.set('name', { value: 'Bobby'.slice(0, 1 + read / 3) });
    };
    const r = await run(b, { selector: { name: 'Name' }, action: 'set_value', text: 'Bobby' });
    assert.equal(r.method, 'typed: fake keyboard');
    assert.equal(r.verification, 'verified', JSON.stringify(r.after));
    assert.equal(b.readsSinceDispatch, 12, 'nine reads of the schedule, then three more while the text came in');
  });

  it('says a typed value was still arriving when its read-back budget ended', async () => {
    const b = settings();
    b.typedPlan = 'typed: fake keyboard';
    b.effect = (f, call) => f.set(call.key, { value: (call.text ?? '').slice(0, 1) });
    const r = await run(b, { selector: { name: 'Name' }, action: 'set_value', text: 'Bobby' });
    assert.equal(r.verification, 'mismatch');
    assert.match(r.verification_detail ?? '', /still arriving when the read-back ended \(6 s\)/);
  });

  it('answers mismatch for a typed value that stopped arriving wrong, right after the schedule', async () => {
    const b = settings();
    b.typedPlan = 'typed: fake keyboard';
    b.effect = (f, call) => f.set(call.key, { value: `${call.text ?? ''}x` });
    const r = await run(b, { selector: { name: 'Name' }, action: 'set_value', text: 'Bob' });
    assert.equal(r.verification, 'mismatch');
    assert.equal(r.after?.value, 'Bobx');
    assert.equal(b.readsSinceDispatch, 9, 'the schedule only: the value neither changed nor holds the first part of the text');
  });

  it('answers after_read unavailable when the element is gone after the call', async () => {
    const b = settings();
    b.effect = (f, call) => f.remove(call.key);
    const r = await run(b, { selector: { name: 'Save' }, action: 'invoke' });
    assert.equal(r.outcome, 'completed');
    assert.deepEqual(r.after_read, { status: 'unavailable' });
    assert.equal(r.verification, 'not_checked');
    assert.equal(r.verification_detail, 'the element is gone after the call');
    assert.equal(r.after, undefined);
  });
});

describe('a typed value still arriving', () => {
  it('is one that left what the field held and changed since the last read, or holds the start of the text', () => {
    assert.equal(stillArriving('Grace', 'Ada', 'G', 'Gra'), true, 'changed since the last read');
    assert.equal(stillArriving('Grace', 'Ada', 'Gra', 'Gra'), true, 'the first part of the text, unchanged');
    assert.equal(stillArriving('Grace', 'Ada', 'Ada', 'Ada'), false, 'what the field held: the keys may never come');
    assert.equal(stillArriving('Grace', 'Ada', 'AdaGrace', 'AdaGrace'), false, 'unchanged and no part of the text');
    assert.equal(stillArriving('Grace', 'Ada', 'Grace!', 'Grace!'), false, 'longer than the text');
    assert.equal(stillArriving('Grace', 'Ada', undefined, undefined), false, 'no value read');
  });
});

describe('element_act tree lifecycle', () => {
  /** Every read act opens is finished exactly once, and nothing is read from it afterwards. */
  const eachReadFinishedOnce = (b: FakeBackend, label: string): void => {
    assert.ok(b.opened > 0, label);
    assert.equal(b.finished, b.opened, `${label}: ${b.opened} reads opened, ${b.finished} finished`);
    assert.deepEqual(b.usedAfterFinish, [], `${label}: read after finish`);
  };

  it('finishes each read once, and reads nothing after, whether it dispatches, refuses or only checks', async () => {
    const cases: { name: string; params: (b: FakeBackend) => Promise<HelperActParams>; change?: (b: FakeBackend) => void }[] = [
      { name: 'invoke', params: () => Promise.resolve({ selector: { name: 'Save' }, action: 'invoke' }) },
      { name: 'set_value', params: () => Promise.resolve({ selector: { name: 'Name' }, action: 'set_value', text: 'Bob' }) },
      { name: 'select in a combo box', params: () => Promise.resolve({ selector: { name: 'Blue' }, action: 'select' }) },
      { name: 'ambiguous', params: () => Promise.resolve({ selector: { name: 'OK' }, action: 'invoke' }) },
      { name: 'not found', params: () => Promise.resolve({ selector: { name: 'Nope' }, action: 'invoke' }) },
      { name: 'disabled', params: () => Promise.resolve({ selector: { name: 'Apply' }, action: 'invoke' }) },
      { name: 'check only', params: () => Promise.resolve({ selector: { name: 'Save' }, action: 'invoke', check_only: true }) },
      {
        name: 'stale reference',
        params: async (b) => ({ element: await refTo(b, { name: 'Save' }), action: 'invoke' }),
        change: (b) => b.set('save', { name: 'Delete' }),
      },
      {
        name: 'rebound reference',
        params: async (b) => ({ element: await refTo(b, { name: 'Save' }), action: 'invoke', rebind: true }),
        change: (b) => b.replace('save', 'save2'),
      },
    ];
    for (const c of cases) {
      const b = settings();
      const params = await c.params(b);
      c.change?.(b);
      await run(b, params);
      eachReadFinishedOnce(b, c.name);
    }
  });

  it('finishes its reads when the call fails or throws', async () => {
    for (const answer of [{ ok: false }, { throws: new DispatchError('gone', 'unknown', 'unknown') }]) {
      const b = settings();
      b.answer = answer;
      await run(b, { selector: { name: 'Save' }, action: 'invoke' });
      eachReadFinishedOnce(b, JSON.stringify(answer));
    }
  });
});
