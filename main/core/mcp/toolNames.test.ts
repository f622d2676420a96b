import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ACTIONS, ERROR_CODES, ERROR_DOCS } from '../../../protocol/index.js';
import { REPO_ROOT } from '../runtime/paths.js';
import { connectionToolList, screenToolList, questionHandoffToolList, toolList } from './toolList.js';
import { activateTool } from './toolTiers.js';

// Every tool an agent is told about exists (docs/tools.md#overview): a description or a hint that
// names a tool no server lists sends the model looking for it.

const tools = [...toolList(), ...screenToolList(), activateTool(), ...questionHandoffToolList(), ...connectionToolList()];
const TOOL_NAMES = new Set(tools.map((t) => t.name));

/** Every property name in a JSON Schema, at any depth. */
function propertyNames(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const s of schema) propertyNames(s, out);
  else if (typeof schema === 'object' && schema !== null) {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'properties' && typeof v === 'object' && v !== null) for (const name of Object.keys(v as object)) out.add(name);
      propertyNames(v, out);
    }
  }
  return out;
}

/**
 * Words of every tool family in a text: a snake_case word that begins as some tool's name does
 * (`window_…`, `element_…`, `computer_…`, `list_…`, `remote_…`, `mouse_…`, …), and is not a
 * field (`data.x_y`), a quoted value or a method path (`tools/list_changed`).
 */
const FAMILY_WORD = new RegExp(`(?<![./\\w"])(?:${[...new Set([...TOOL_NAMES].map((n) => n.split('_')[0]))].join('|')})_[a-z_]+\\b`, 'g');

describe('tool names in what agents read', () => {
  it('lists the tools it checks against', () => {
    for (const name of ['window_read', 'element_act', 'action_wait', 'computer_ask', 'computer_use_activate', 'screenshot', 'remote_exec'])
      assert.ok(TOOL_NAMES.has(name), name);
  });

  it('names only tools that exist in the descriptions and the error docs: every family word is a tool, an argument or answer field, an action or an error code', () => {
    const fields = new Set<string>();
    for (const t of tools) {
      propertyNames(t.inputSchema, fields);
      propertyNames(t.outputSchema, fields);
    }
    const known = new Set<string>([...TOOL_NAMES, ...fields, ...ERROR_CODES, ...ACTIONS]);
    const read: [string, string][] = [...tools.map((t): [string, string] => [t.name, t.description ?? '']), ...Object.entries(ERROR_DOCS)];
    const unknown: string[] = [];
    for (const [where, text] of read) for (const word of text.match(FAMILY_WORD) ?? []) if (!known.has(word)) unknown.push(`${where}: ${word}`);
    assert.deepEqual(unknown, []);
    // The check sees the families it claims to: a made-up name of each is caught.
    for (const made of ['list_desktops', 'remote_shell', 'mouse_wheel', 'element_drag']) assert.match(`call ${made} first`, new RegExp(FAMILY_WORD.source));
  });

  it('names no computer_… tool that does not exist anywhere in the product or its docs', () => {
    const files = execFileSync('git', ['ls-files', '-z', '--', 'helper', 'main', 'protocol', 'renderer', 'docs', 'README.md', 'CONTRIBUTING.md'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((f) => /\.(ts|tsx|md)$/.test(f) && !f.endsWith('toolNames.test.ts'));
    const unknown: string[] = [];
    for (const file of files) {
      const text = readFileSync(`${REPO_ROOT}${file}`, 'utf8');
      for (const word of text.match(/\bcomputer_[a-z_]+\b/g) ?? []) if (!TOOL_NAMES.has(word)) unknown.push(`${file}: ${word}`);
    }
    assert.deepEqual(unknown, []);
  });
  it('counts the tools in the README as the servers list them', () => {
    const readme = readFileSync(`${REPO_ROOT}README.md`, 'utf8');
    const said = /^(\d+) tools in tiers/m.exec(readme)?.[1];
    assert.equal(Number(said), TOOL_NAMES.size, `README says "${said ?? '(no count)'} tools in tiers"`);
  });
});
