import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brakeKey, brakeWords } from './brakeWords.js';

const press = (key: string, mods: Partial<{ ctrlKey: boolean; altKey: boolean; shiftKey: boolean; metaKey: boolean; repeat: boolean }> = {}) => ({
  key,
  ctrlKey: false,
  altKey: false,
  shiftKey: false,
  metaKey: false,
  repeat: false,
  ...mods,
});
const chord = { ctrlKey: true, altKey: true, shiftKey: true };

describe('the brake bar words', () => {
  it('never says agents were disconnected by an emergency stop: they stay, counted as the Agents panel counts them', () => {
    for (const n of [0, 1, 2]) assert.doesNotMatch(brakeWords('emergency', n).detail, /disconnected/);
    assert.match(brakeWords('emergency', 2).detail, /2 agents stay connected/);
    assert.match(brakeWords('emergency', 1).detail, /1 agent stays connected/);
    assert.match(brakeWords('emergency', 0).detail, /no agent is connected/);
  });
});

describe('the brake keys', () => {
  it('pause on Ctrl+Alt+Shift+P and stop everything on Ctrl+Alt+Shift+Esc, and nothing else', () => {
    assert.equal(brakeKey(press('P', chord)), 'pause');
    assert.equal(brakeKey(press('Escape', chord)), 'emergency_stop');
    assert.equal(brakeKey(press('Escape', { ...chord, ctrlKey: false, metaKey: true })), 'emergency_stop');
    assert.equal(brakeKey(press('Escape')), undefined, 'Escape alone closes dialogs');
    assert.equal(brakeKey(press('p', { ctrlKey: true, altKey: true })), undefined);
    assert.equal(brakeKey(press('Escape', { ...chord, repeat: true })), undefined, 'a held key acts once');
  });
});
