import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accessibilityXmlOf, desktopWindows, parseAccessibility, subtreeAt, topLevelWindows } from './accessibilityXml.js';

const NS =
  'xmlns:st="https://accessibility.ubuntu.example.org/ns/state" xmlns:attr="https://accessibility.ubuntu.example.org/ns/attributes" ' +
  'xmlns:cp="https://accessibility.ubuntu.example.org/ns/component" xmlns:val="https://accessibility.ubuntu.example.org/ns/value" ' +
  'xmlns:act="https://accessibility.ubuntu.example.org/ns/action"';

const TREE =
  `<desktop-frame ${NS}><application name="gnome-calculator">` +
  '<frame name="Calculator" st:active="true" st:showing="true" st:visible="true" cp:screencoord="(10, 20)" cp:size="(300, 400)">' +
  '<push-button name="7" st:enabled="true" st:showing="true" st:visible="true" cp:screencoord="(15, 100)" cp:size="(40, 30)" act:click_desc="Clicks the button" act:click_kb="" />' +
  '<text name="" st:editable="true" st:multi_line="true">a &lt;b&gt; &amp; &#x65E5;&#26412;</text>' +
  '<slider name="Volume" val:value="30.0" val:min="0.0" val:max="100.0" attr:toolkit="gtk" />' +
  '</frame><dialog name="About" st:showing="true" /></application>' +
  '<application name="gnome-calculator"><frame name="Calculator" st:showing="true" /></application></desktop-frame>';

describe('the OSWorld accessibility XML', () => {
  it('reads names, states, rects, values, actions, attributes and text, entities decoded', () => {
    const root = parseAccessibility(TREE);
    const frame = root.children[0]?.children[0];
    assert.equal(frame?.role, 'frame');
    assert.deepEqual(frame.rect, { x: 10, y: 20, w: 300, h: 400 });
    assert.deepEqual([...frame.states].sort(), ['active', 'showing', 'visible']);
    const [button, text, slider] = frame.children;
    assert.deepEqual([button?.role, button?.name, button?.actions, button?.rect], ['push-button', '7', ['click'], { x: 15, y: 100, w: 40, h: 30 }]);
    assert.equal(text?.text, 'a <b> & 日本');
    assert.ok(text?.states.has('multi_line'));
    assert.deepEqual([slider?.value, slider?.attributes['toolkit'], slider?.rect], ['30.0', 'gtk', undefined]);
    assert.equal(button?.path, '0/0/0');
  });

  it('reads the older namespace spelling by its URIs, whatever the prefixes', () => {
    const xml =
      '<desktop-frame xmlns:s="uri:deskat:state.at-spi.gnome.org" xmlns:c="uri:deskat:component.at-spi.gnome.org"><application name="a">' +
      '<frame name="w" s:showing="true" c:screencoord="(1, 2)" c:size="(3, 4)" /></application></desktop-frame>';
    const frame = parseAccessibility(xml).children[0]?.children[0];
    assert.ok(frame?.states.has('showing'));
    assert.deepEqual(frame?.rect, { x: 1, y: 2, w: 3, h: 4 });
  });

  it('names windows by application, instance and place, and unwraps {"AT": xml}', () => {
    const windows = topLevelWindows(parseAccessibility(accessibilityXmlOf({ AT: TREE }) ?? ''));
    assert.deepEqual(
      windows.map((w) => [w.id, w.node.name]),
      [
        ['osworld:gnome-calculator~0/0', 'Calculator'],
        ['osworld:gnome-calculator~0/1', 'About'],
        ['osworld:gnome-calculator~1/0', 'Calculator'],
      ],
    );
    assert.equal(accessibilityXmlOf({ output: TREE }), undefined);
    assert.equal(accessibilityXmlOf(TREE), undefined);
  });

  it('refuses what is not a tree: DOCTYPE, mismatched or unclosed tags, two roots, runaway depth', () => {
    for (const bad of [
      '<!DOCTYPE x [<!ENTITY a "b">]><desktop-frame/>',
      '<desktop-frame><application></desktop-frame>',
      '<desktop-frame><application name="x">',
      '<desktop-frame/><desktop-frame/>',
      '<desktop-frame name="x',
      `${'<a>'.repeat(300)}${'</a>'.repeat(300)}`,
      '',
    ])
      assert.throws(() => parseAccessibility(bad), Error, bad.slice(0, 40));
  });

  it('lists windows without building what they hold, with the same ids, places and details as a whole read', () => {
    const whole = topLevelWindows(parseAccessibility(TREE));
    const listed = desktopWindows(TREE);
    assert.deepEqual(
      listed.map((w) => [w.id, w.node.path, w.node.name, [...w.node.states], w.node.rect, w.node.children.length, w.node.cut]),
      whole.map((w) => [w.id, w.node.path, w.node.name, [...w.node.states], w.node.rect, 0, w.node.children.length > 0 ? true : undefined]),
    );
    assert.equal(listed[0]?.node.cut, true, 'the calculator frame holds elements, left unread');
  });

  it('builds one window whole, equal to its part of a whole read, and nothing of its neighbours', () => {
    const whole = parseAccessibility(TREE);
    const frame = subtreeAt(TREE, '0/0');
    assert.deepEqual(frame, whole.children[0]?.children[0]);
    assert.equal(subtreeAt(TREE, '0/5'), undefined, 'a place with no window there');
    // Only the way to the window is built: its neighbours are cut, other applications are not built at all.
    const about = subtreeAt(TREE, '0/1');
    assert.equal(about?.name, 'About');
  });

  it('still refuses a malformed tree whose bad part lies inside an unread window', () => {
    const bad = TREE.replace('</frame><dialog', '</text></frame><dialog');
    assert.throws(() => parseAccessibility(bad), Error);
    assert.throws(() => desktopWindows(bad), /does not close/);
    assert.throws(() => subtreeAt(bad, '1/0'), /does not close/);
  });
});
