import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ElementApproval, ScreenApproval, ScreenInputDetail } from '../../protocol/index.js';
import { cardElementKey, cardWindowId, subjectApp, subjectLabel } from './cardSubject.js';
import { describeInput, inputVerb, pictureAlt, receiptScreenLine } from './screenDescribe.js';

const WINDOW = { handle: '0x1200007', title: 'Canvas', app: 'canvasApp', pid: 4242, rect: { x: 0, y: 0, width: 800, height: 600 }, window: 'w7' };

const screenCard = (action: ScreenApproval['action'], detail: ScreenInputDetail, planned = true): ScreenApproval => ({
  kind: 'screen',
  approval_id: 'A1',
  receipt_id: 'r-A1',
  session: 's1',
  agent: 'claude',
  action,
  password: false,
  ancestor_path: [],
  screen: {
    card: {
      picture: 'data:image/png;base64,',
      width: 1280,
      height: 800,
      planned,
      ...(detail.point ? { point: detail.point } : {}),
      masked: [],
      sha256: 'x',
      bytes: 0,
    },
    detail,
  },
  created_at: new Date(0).toISOString(),
  expires_at: new Date(120_000).toISOString(),
  risk_hints: [],
});

describe('screen input cards in words', () => {
  it('names a screen input by the element at its point, its app and the window the tree follows', () => {
    const card = screenCard('click', {
      point: { x: 412, y: 300 },
      physical: { x: 824, y: 600 },
      window: WINDOW,
      element: { key: 'k9', role: 'button', name: 'OK', password: false },
    });
    assert.equal(subjectLabel(card), 'button "OK"');
    assert.equal(subjectApp(card), 'canvasApp');
    assert.equal(cardWindowId(card), 'w7');
    assert.equal(cardElementKey(card), 'k9');
  });

  it('names where a screen input lands when no element is named there', () => {
    const card = screenCard('click', { point: { x: 1, y: 2 }, physical: { x: 2, y: 4 }, window: WINDOW });
    assert.equal(subjectLabel(card), '2,4 in "Canvas"');
    assert.equal(cardElementKey(card), undefined);
  });

  it('names an element_act card by its target exactly as before', () => {
    const { screen: _screen, ...common } = screenCard('click', {});
    const card: ElementApproval = {
      ...common,
      kind: 'element',
      action: 'invoke',
      target: { key: 'k1', role: 'button', name: '', state: {}, patterns: [] },
      window: { window: 'w1', title: 'Fixture', app: 'fixture', pid: 42, process_start: '1', foreground: false },
    };
    assert.equal(subjectLabel(card), 'button', 'an empty name is not quoted');
    assert.equal(subjectApp(card), 'fixture');
    assert.equal(cardWindowId(card), 'w1');
    assert.equal(cardElementKey(card), 'k1');
  });

  it('says what each input does', () => {
    assert.equal(inputVerb('click', { count: 2 }), 'double click');
    assert.equal(inputVerb('click', { button: 'right' }), 'right click');
    assert.equal(inputVerb('scroll', { direction: 'down', amount: 1 }), 'scroll down 1 detent');
    assert.equal(inputVerb('scroll', { direction: 'up', amount: 5 }), 'scroll up 5 detents');
    assert.equal(inputVerb('hold_key', { keys: 'shift', duration_ms: 500 }), 'hold shift for 500 ms');
    assert.equal(inputVerb('mouse_up', {}), 'release the left button');
  });

  it('describes where an input lands for the alt text, drags from and to', () => {
    assert.equal(
      describeInput('left_click_drag', {
        point: { x: 10, y: 20 },
        physical: { x: 20, y: 40 },
        to: { x: 30, y: 40 },
        to_physical: { x: 60, y: 80 },
        window: WINDOW,
      }),
      'drag from 10,20 of the picture (screen 20,40) to 30,40 of the picture (screen 60,80) in “Canvas” · canvasApp · pid 4242',
    );
    assert.equal(describeInput('key', { keys: 'ctrl+s', window: WINDOW }), 'press ctrl+s into the focused window in “Canvas” · canvasApp · pid 4242');
    const unplanned = screenCard('click', { point: { x: 5, y: 6 } }, false);
    assert.match(pictureAlt(unplanned), /^A screenshot captured for this card, 1280×800; the input is marked: click at 5,6 of the picture\.$/);
  });

  it('sums up a screen receipt in one line', () => {
    assert.equal(
      receiptScreenLine('click', { point: { x: 412, y: 300 }, physical: { x: 824, y: 600 }, window: WINDOW, element: { role: 'canvas', password: false } }),
      'click · 412,300 (screen 824,600) · canvas · “Canvas” · canvasApp · pid 4242',
    );
    assert.match(
      receiptScreenLine('key', { keys: 'Left Left Left', window: WINDOW, sent: { count: 2, of: 3, unit: 'keys' } }),
      / · stopped after 2 of 3 keys$/,
      'keys a rule covered that stopped part way say how far they got',
    );
  });
});
