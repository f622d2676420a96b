import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { placeLine, placeOf, roleWords } from './screenDescribe.js';

const WINDOW = { handle: '0x1200007', title: 'Overseer Fixture', app: 'fixtureApp.py', pid: 4242, rect: { x: 0, y: 0, width: 1000, height: 800 } };

describe('where a screen input lands, in words', () => {
  it('names the element at the point by its role in words and its name, then the window and app', () => {
    const p = placeOf('click', { element: { role: 'edit', name: 'Name', password: false }, window: WINDOW });
    assert.deepEqual(p, {
      name: 'Name',
      kind: 'text field',
      password: false,
      focus: false,
      bare: false,
      window: { title: 'Overseer Fixture', app: 'fixtureApp.py' },
    });
    assert.equal(placeLine(p), 'the “Name” text field in “Overseer Fixture” (app fixtureApp.py)');
  });

  it('says that keys and text go to the element with the keyboard focus', () => {
    for (const action of ['type_text', 'key', 'hold_key']) {
      const p = placeOf(action, { keys: 'Return', element: { role: 'edit', name: 'Name', password: false }, window: WINDOW });
      assert.ok(p !== undefined);
      assert.equal(placeLine(p), 'the “Name” text field, which has the keyboard focus, in “Overseer Fixture” (app fixtureApp.py)', action);
    }
  });

  it('calls an element without a name unnamed, and a window the application names nothing finer in by itself', () => {
    const unnamed = placeOf('click', { element: { role: 'check_box', name: '  ', password: false }, window: WINDOW });
    assert.ok(unnamed !== undefined);
    assert.equal(placeLine(unnamed), 'the unnamed checkbox in “Overseer Fixture” (app fixtureApp.py)');
    const bare = placeOf('click', { element: { role: 'window', name: 'Overseer Fixture', password: false }, window: WINDOW });
    assert.ok(bare !== undefined);
    assert.equal(placeLine(bare), '“Overseer Fixture” (app fixtureApp.py), where the application names no element');
    const noElement = placeOf('click', { window: { ...WINDOW, app: 'Overseer Fixture' } });
    assert.ok(noElement !== undefined);
    assert.equal(placeLine(noElement), '“Overseer Fixture”, where the application names no element', 'an app named as its window is not said twice');
    assert.equal(placeOf('click', {}), undefined, 'nothing known: no place');
    const noFocus = placeOf('type_text', { window: WINDOW });
    assert.ok(noFocus !== undefined);
    assert.equal(placeLine(noFocus), '“Overseer Fixture” (app fixtureApp.py), where the application names no element with the keyboard focus');
  });

  it('keeps a password field marked and its element without a window in one phrase', () => {
    const p = placeOf('type_text', { element: { role: 'edit', name: 'Password', password: true } });
    assert.ok(p !== undefined);
    assert.equal(p.password, true);
    assert.equal(placeLine(p), 'the “Password” text field, which has the keyboard focus');
  });

  it('puts roles in the words people use, and any other role without underscores', () => {
    assert.equal(roleWords('edit'), 'text field');
    assert.equal(roleWords('check_box'), 'checkbox');
    assert.equal(roleWords('tab_item'), 'tab');
    assert.equal(roleWords('radio_button'), 'radio button');
    assert.equal(roleWords('menu_item'), 'menu item');
  });
});
