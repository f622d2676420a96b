import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HelperFindParams, rect } from '../../protocol/index.js';
import { Deadline } from './deadline.js';
import { FakeBackend } from '../testing/fakeBackend.js';
import { findElements } from './find.js';
import { backendSource, openSource } from './source.js';

function form(): FakeBackend {
  return new FakeBackend(
    'root',
    {
      root: { role: 'window', name: 'Form', children: ['name', 'ok'] },
      name: { role: 'edit', name: 'Name', automationId: 'name', value: 'Ann', patterns: ['value'], state: { enabled: true } },
      ok: { role: 'button', name: 'OK', patterns: ['invoke'], state: { enabled: true } },
    },
    { window: 'w1', title: 'Form', app: 'form', pid: 7, process_start: '1', rect: rect(0, 0, 100, 100), foreground: true },
  );
}

describe('tree source lifecycle', () => {
  it('throws on any read after finish() and on a second finish()', async () => {
    const b = form();
    const deadline = new Deadline(1000, new AbortController().signal);
    const source = await openSource(b, await b.resolveWindow(undefined), deadline);
    assert.equal(source.node('ok')?.name, 'OK');
    const native = backendSource(source);
    assert.notEqual(native, source, 'dispatch gets the source the backend made (backends check it)');
    assert.equal(native.node('ok')?.name, 'OK');
    source.finish();
    assert.throws(() => backendSource(source), /used \(dispatch\) after finish/);
    assert.equal(b.finished, 1);
    assert.throws(() => source.node('ok'), /used \(node\) after finish/);
    assert.throws(() => source.truncated, /after finish/);
    assert.throws(() => source.finish(), /used \(finish\) after finish/);
    await assert.rejects(async () => source.details(['ok'], deadline), /after finish/);
    assert.equal(b.finished, 1, 'the backend saw one finish');
    assert.equal(source.window.rootKey, 'root', 'the window handle stays readable');
  });

  it('element_find finishes each read once and reads nothing from it afterwards', async () => {
    const find = async (b: FakeBackend, params: HelperFindParams): Promise<void> => {
      await findElements(b, HelperFindParams.parse(params), new AbortController().signal);
      assert.ok(b.opened > 0);
      assert.equal(b.finished, b.opened, `${b.opened} reads opened, ${b.finished} finished`);
      assert.deepEqual(b.usedAfterFinish, []);
    };
    await find(form(), { selector: { name: 'OK' }, refs: true });
    await find(form(), { selector: { automation_id: 'name' } });
    await find(form(), { selector: { name: 'Cancel' } });
    const waiting = form();
    await find(waiting, { selector: { name: 'Cancel' }, timeout_ms: 250 });
    assert.ok(waiting.opened > 1, 'looked more than once while waiting');
  });
});
