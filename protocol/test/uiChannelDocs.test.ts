import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { UI_COMMANDS, UI_EVENTS } from '../index.js';

/** The names a table cell of docs/architecture.md#ui-channel lists: the first word of each code span. */
function named(cell: string): Set<string> {
  return new Set([...cell.matchAll(/`([^`]+)`/g)].map((m) => /^[a-z_]+/.exec(m[1] ?? '')?.[0] ?? ''));
}

describe('the UI channel as docs/architecture.md lists it', () => {
  it('names every command and every event of the table in protocol/uiChannel.ts, and nothing else', () => {
    const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const lines = doc.split('\n');
    const head = lines.indexOf('| commands | events |');
    assert.ok(head >= 0, 'the table is there');
    const [commands = '', events = ''] = (lines[head + 2] ?? '').split('|').slice(1, 3);
    assert.deepEqual([...named(commands)].sort(), Object.keys(UI_COMMANDS).sort());
    assert.deepEqual([...named(events)].sort(), Object.keys(UI_EVENTS).sort());
  });
});
