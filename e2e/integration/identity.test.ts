import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HELPER_METHODS, rect, type ElementRef, type HelperMethod, type HelperParams, type HelperResult } from '../../protocol/index.js';
import { FakeBackend } from '../../helper/testing/fakeBackend.js';
import { HelperService } from '../../helper/core/service.js';
import type { HelperCaller } from '../../main/core/helperLink/helperSupervisor.js';
import { AgentSession } from '../../main/core/session/agentSession.js';
import { elementFind, windowRead } from '../../main/core/tools/readTools.js';

const LONG = 'A group whose accessible name runs far past the read budget';

/** A window where text is cut on the way out: a long-named group, an empty class, an empty automation id. */
function backend(): FakeBackend {
  return new FakeBackend(
    'root',
    {
      root: { role: 'window', name: 'Identity', children: ['group'] },
      group: { role: 'group', name: LONG, className: '', children: ['save'] },
      save: { role: 'button', name: 'Save the document with a long label', automationId: '', className: '', patterns: ['invoke'], state: { enabled: true } },
    },
    { window: 'w1', title: 'Identity', app: 'identity', pid: 9, process_start: '3', rect: rect(0, 0, 300, 200), foreground: true },
  );
}

/** The real helper service over the fake backend, answers checked against the protocol table as the client does. */
function helperOver(b: FakeBackend): HelperCaller {
  const service = new HelperService(b, () => {});
  return {
    call: async <M extends HelperMethod>(method: M, params: HelperParams<M>): Promise<HelperResult<M>> =>
      HELPER_METHODS[method].result.parse(await service.handle(method, params, new AbortController().signal)) as HelperResult<M>,
  };
}

describe('element identity has one home: the helper builds it, the supervisor uses it', () => {
  it('binds a window_read target to exactly the reference element_find and the helper bind, even when text is cut', async () => {
    const b = backend();
    const deps = { helper: helperOver(b), settings: () => ({ read_timeout_ms: 5000, read_max_nodes: 400 }) };
    const session = new AgentSession({ transport: 'http', progressiveTools: false, now: () => 0 });
    const read = await windowRead(deps, session, { window: 'w1', format: 'flat', max_text_chars: 8 }, new AbortController().signal);
    const elements = read.elements ?? [];
    const save = elements.find((e) => e.key === 'save');
    assert.ok(save?.target !== undefined && save.name !== undefined && save.name.length < 20, 'the name was cut in the answer');
    const fromRead = session.targets.resolve(save.target).ref;
    const found = await elementFind(deps, session, { window: 'w1', selector: { role: 'button' } }, new AbortController().signal);
    const fromFind = session.targets.resolve(found.matches[0]?.target).ref;
    const bound = await helperOver(b).call('element_act', { window: 'w1', selector: { role: 'button' }, action: 'invoke', check_only: true });
    const { shown: _shown, ...fromAct } = bound.element_ref as ElementRef;
    assert.equal(JSON.stringify(fromRead), JSON.stringify(fromFind), 'window_read and element_find bind the same identity, byte for byte');
    assert.equal(JSON.stringify(fromRead), JSON.stringify(fromAct));
    assert.deepEqual(fromRead.ancestors, ['window:Identity', `group:${LONG}`]);
    assert.equal(fromRead.name, 'Save the document with a long label');
    assert.equal(
      elements.some((e) => 'digest' in e),
      false,
      'the agent never sees digests',
    );
  });
});
