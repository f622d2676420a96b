import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LANDING_GRACE_MS, LandingGuard } from './landingGuard.js';

describe('the landing guard', () => {
  const clock = { t: 1000, now: () => clock.t };

  it('refuses decisions and releases while an input lands and for the grace after, never stops or reads', () => {
    const guard = new LandingGuard(clock);
    assert.equal(guard.refusal('approve', {}), undefined, 'nothing landing: nothing held back');
    const end = guard.begin();
    for (const command of ['approve', 'deny', 'update_settings', 'add_rule', 'pair_link', 'answer_question', 'connection_add'])
      assert.equal(guard.refusal(command, {})?.data?.['reason'], 'agent_input_landing', command);
    assert.equal(guard.refusal('screen_consent', { forget: true })?.code, 'excluded_target');
    assert.equal(guard.refusal('screen_consent', {}), undefined, 'reading the consent is not a change');
    assert.equal(guard.refusal('brake', { action: 'rearm' })?.code, 'excluded_target');
    assert.equal(guard.refusal('brake', { action: 'resume' })?.code, 'excluded_target');
    for (const action of ['stop', 'emergency_stop', 'pause']) assert.equal(guard.refusal('brake', { action }), undefined, action);
    for (const command of ['snapshot', 'screen_view', 'allow_preview', 'presence', 'choose_window'])
      assert.equal(guard.refusal(command, {}), undefined, command);
    clock.t += 60_000; // a long input is held back for as long as it lasts
    assert.equal(guard.refusal('approve', {})?.data?.['retry_after_ms'], LANDING_GRACE_MS);
    end();
    end(); // ending twice ends once
    clock.t += 400;
    assert.equal(guard.refusal('approve', {})?.data?.['retry_after_ms'], LANDING_GRACE_MS - 400);
    clock.t += LANDING_GRACE_MS - 400;
    assert.equal(guard.refusal('approve', {}), undefined, 'after the grace the person decides again');
  });

  it('holds while any of several inputs lands, and counts the grace from the last to end', () => {
    const guard = new LandingGuard(clock);
    const first = guard.begin();
    const second = guard.begin();
    first();
    clock.t += 5000;
    assert.ok(guard.refusal('approve', {}) !== undefined, 'the second still lands');
    second();
    clock.t += LANDING_GRACE_MS - 1;
    assert.ok(guard.refusal('approve', {}) !== undefined);
    clock.t += 1;
    assert.equal(guard.refusal('approve', {}), undefined);
  });
});
