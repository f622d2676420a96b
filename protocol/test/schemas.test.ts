import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ElementActArgs,
  ElementFindArgs,
  ERROR_CODES,
  ERROR_DOCS,
  Exclusions,
  LIST_LIMIT,
  READ_LIMITS,
  WindowReadArgs,
  applyLimit,
  invalidArgument,
} from '../index.js';

describe('agent tool schemas', () => {
  it('refuses null, numbers and blank strings in selector fields instead of dropping them', () => {
    for (const bad of [null, 3, '', '   ', true]) {
      const r = ElementFindArgs.safeParse({ selector: { name: bad } });
      assert.equal(r.success, false, `name: ${JSON.stringify(bad)} must be refused`);
    }
  });

  it('names the offending field in invalid_argument', () => {
    const r = ElementFindArgs.safeParse({ selector: { role: 'button', name: null } });
    assert.equal(r.success, false);
    if (r.success) return;
    const info = invalidArgument(r.error, 'element_find');
    assert.equal(info.code, 'invalid_argument');
    assert.match(info.detail, /selector\.name/);
    assert.match(info.detail, /null/);
  });

  it('says a selector text is too long, not that it is no string', () => {
    const r = ElementFindArgs.safeParse({ window: 'w', selector: { name: 'x'.repeat(1001) } });
    assert.equal(r.success, false);
    if (r.success) return;
    assert.equal(invalidArgument(r.error, 'element_find').detail, 'element_find: selector.name: must be at most 1000 characters, got 1001');
  });

  it('bounds an invalid_argument error: ten unknown keys named with the count, twenty issues listed with the count', () => {
    const keys = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i]));
    const r = ElementFindArgs.safeParse({ window: 'w', selector: { name: 'a' }, ...keys });
    assert.equal(r.success, false);
    if (r.success) return;
    const info = invalidArgument(r.error, 'element_find');
    assert.match(info.detail, /^element_find: \(root\): unknown fields "k0", .*"k9" and 199,990 more$/);
    assert.ok(JSON.stringify(info).length < 1000, `${JSON.stringify(info).length} chars`);
    const many = Exclusions.safeParse({ pids: Array.from({ length: 500 }, () => -1) });
    assert.equal(many.success, false);
    if (many.success) return;
    const listed = invalidArgument(many.error, 'configure');
    assert.equal((listed.data?.['issues'] as unknown[]).length, 20);
    assert.equal(listed.data?.['issue_count'], 500);
    assert.match(listed.detail, /^configure: pids\.0: .* \(\+499 more\)$/);
  });

  it('keeps whitespace of selector text as given', () => {
    const r = ElementFindArgs.parse({ selector: { name: ' Save ' } });
    assert.equal(r.selector.name, ' Save ');
  });

  it('refuses an empty selector and unknown fields', () => {
    assert.equal(ElementFindArgs.safeParse({ selector: {} }).success, false);
    assert.equal(ElementFindArgs.safeParse({ selector: { name: 'a', colour: 'red' } }).success, false);
    assert.equal(WindowReadArgs.safeParse({ max_nodes: 10, bogus: 1 }).success, false);
  });

  it('needs exactly one of selector or target, and text only for set_value', () => {
    assert.equal(ElementActArgs.safeParse({ action: 'invoke' }).success, false);
    assert.equal(ElementActArgs.safeParse({ action: 'invoke', selector: { name: 'a' }, target: 't' }).success, false);
    assert.equal(ElementActArgs.safeParse({ action: 'set_value', selector: { name: 'a' } }).success, false);
    assert.equal(ElementActArgs.safeParse({ action: 'set_value', selector: { name: 'a' }, text: null }).success, false);
    assert.equal(ElementActArgs.safeParse({ action: 'set_value', selector: { name: 'a' }, text: '' }).success, true);
    assert.equal(ElementActArgs.safeParse({ action: 'invoke', selector: { name: 'a' }, text: 'x' }).success, false);
    assert.equal(ElementActArgs.safeParse({ action: 'explode', selector: { name: 'a' } }).success, false);
  });

  it('refuses huge strings', () => {
    assert.equal(ElementFindArgs.safeParse({ selector: { name: 'x'.repeat(5000) } }).success, false);
    assert.equal(ElementActArgs.safeParse({ action: 'set_value', selector: { name: 'a' }, text: 'x'.repeat(200_000) }).success, false);
  });

  it('documents every error code', () => {
    for (const code of ERROR_CODES) assert.ok(ERROR_DOCS[code].length > 10, code);
    // The closed set of docs/tools.md#errors, in its order.
    const spec =
      'invalid_argument not_found ambiguous unreadable incomplete_scan pattern_unsupported not_enabled stale_process stale_window stale_element snapshot_unknown snapshot_expired snapshot_spent snapshot_superseded snapshot_evicted excluded_target target_elevated accessibility_unavailable no_interactive_desktop timeout helper_unavailable denied expired braked withdrawn stale_screen capture_unavailable input_unavailable connection_unavailable wrong_connection application_unresponsive window_gone internal';
    assert.deepEqual([...ERROR_CODES], spec.split(' '));
  });
});

describe('limits', () => {
  it('applies defaults, clamps to the ceiling and echoes the request', () => {
    assert.deepEqual(applyLimit(READ_LIMITS.max_nodes, undefined), { value: 400, ceiling: 5000 });
    assert.deepEqual(applyLimit(READ_LIMITS.max_nodes, 9000), { value: 5000, ceiling: 5000, requested: 9000 });
    assert.deepEqual(applyLimit(LIST_LIMIT, 7), { value: 7, ceiling: 500 });
  });

  it('refuses limits below their minimum and non-integers', () => {
    assert.equal(WindowReadArgs.safeParse({ max_nodes: 0 }).success, false);
    assert.equal(WindowReadArgs.safeParse({ timeout_ms: 1.5 }).success, false);
    assert.equal(WindowReadArgs.safeParse({ max_depth: '3' }).success, false);
  });
});
