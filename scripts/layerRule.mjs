// The `overseer/layers` ESLint rule: every import of every file is checked against the allowlist of
// its folder in scripts/layers.mjs. A file in no listed folder, an import that leaves the repository,
// and an import its folder does not list are errors whose message names the right route.
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { LAYERS } from './layers.mjs';

export { LAYERS };

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const TEST_FILE = /\.test\.tsx?$/;

/** Whether repository path `p` is `entry` or lies inside it (entries are folders or files). */
function within(p, entry) {
  if (entry === '.') return true;
  const bare = (s) => s.replace(/\.(ts|tsx|js|mjs|mts)$/, '');
  return p === entry || bare(p) === bare(entry) || p.startsWith(`${entry}/`);
}

/** The layer a repository-relative file belongs to: the most specific folder listed, or undefined. */
export function layerOf(file) {
  const dir = path.posix.dirname(file);
  let best;
  for (const layer of LAYERS) {
    const hit = layer.folder === '.' ? dir === '.' : within(dir, layer.folder);
    if (hit && (best === undefined || layer.folder.length > best.folder.length)) best = layer;
  }
  return best;
}

/**
 * Whether allowlist entry `entry` covers repository path `target`: the entry names the target or a
 * folder above it, and no test-only layer lies between them (`helper` does not cover `helper/testing`).
 */
function covers(entry, target) {
  if (!within(target, entry)) return false;
  const owner = layerOf(target);
  return owner?.testOnly !== true || within(entry, owner.folder);
}

/** The package an import specifier names (`node:*` for built-ins). */
function packageOf(spec) {
  if (spec.startsWith('node:') || isBuiltin(spec)) return 'node:*';
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Checks one import of `file` (repository-relative, posix). Returns undefined when allowed, else the
 * message to report.
 */
export function checkImport(file, spec) {
  const layer = layerOf(file);
  if (layer === undefined) return `${file} is in no layer: add its folder to scripts/layers.mjs with what it may import.`;
  const test = TEST_FILE.test(file);
  if (!spec.startsWith('.')) {
    const name = packageOf(spec);
    const allowed = [...(layer.packages ?? []), ...(test ? (layer.testPackages ?? []) : [])];
    if (allowed.includes(name)) return undefined;
    return `${layer.folder}/ may not import the package ${name === 'node:*' ? `Node built-in ${spec}` : name}. ${layer.why} Its packages: ${allowed.join(', ') || 'none'}.`;
  }
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  if (target.startsWith('..')) return `${spec} leaves the repository: import only what lies in it.`;
  const may = [...layer.may, ...(test ? (layer.testsMay ?? []) : [])];
  if (may.some((entry) => covers(entry, target))) return undefined;
  const owner = layerOf(target);
  const route = owner?.reach ? ` ${owner.reach}` : '';
  return `${layer.folder}/ may not import ${target}${owner ? ` (layer ${owner.folder}/)` : ''}.${route} ${layer.why} It may import: ${may.join(', ') || 'nothing of the project'}.`;
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: { type: 'problem', docs: { description: 'imports follow the allowlist of scripts/layers.mjs' }, schema: [] },
  create(context) {
    const file = path.relative(ROOT, context.filename).split(path.sep).join('/');
    const check = (node, source) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const message = checkImport(file, source.value);
      if (message !== undefined) context.report({ node, message });
    };
    return {
      Program(node) {
        if (layerOf(file) === undefined) context.report({ node, message: checkImport(file, '.') ?? '' });
      },
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      CallExpression(node) {
        // `new URL('../x', import.meta.url)` is not an import; require() is, in .cjs/.mjs tooling.
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0]);
      },
    };
  },
};

/** The ESLint plugin that carries the rule. */
export const layersPlugin = { rules: { layers: rule } };

/**
 * The allowlist as a graph among layers: from each layer, the other layers its `may` reaches (an
 * entry that names a folder reaches every layer inside it, a test-only one only when named). Tests'
 * `testsMay` is left out: nothing imports a test, so a test's imports close no loop.
 */
export function allowGraph() {
  const graph = new Map();
  for (const layer of LAYERS) {
    const to = new Set();
    for (const entry of layer.may) {
      const named = layerOf(/\.[a-z]+$/.test(entry) ? entry : `${entry}/_`);
      if (named !== undefined) to.add(named.folder);
      for (const other of LAYERS) if (other.folder !== '.' && covers(entry, `${other.folder}/_`)) to.add(other.folder);
    }
    to.delete(layer.folder);
    graph.set(layer.folder, [...to].sort());
  }
  return graph;
}

/** Every loop of layers that may import each other, as the path that closes it (`a → b → a`); none when the allowlist is a hierarchy. */
export function layerCycles(graph = allowGraph()) {
  const cycles = [];
  const state = new Map(); // folder → 'open' while on the path, 'done' once every way out was followed
  const path = [];
  const visit = (folder) => {
    state.set(folder, 'open');
    path.push(folder);
    for (const next of graph.get(folder) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(folder, 'done');
  };
  for (const folder of graph.keys()) if (!state.has(folder)) visit(folder);
  return cycles;
}

/** The layer table as markdown, for docs/architecture.md (a test keeps the two equal). */
export function layerTable() {
  const code = (list) => list.map((x) => (x === 'node:*' ? 'Node' : `\`${x}\``)).join(', ');
  const rows = LAYERS.map((l) => {
    const tests = [code(l.testsMay ?? []), l.testPackages?.length ? `(packages: ${code(l.testPackages)})` : ''].filter(Boolean).join(' ');
    return `| \`${l.folder}\` | ${code(l.may)} | ${code(l.packages ?? [])} | ${tests} |`;
  });
  return ['| folder | may import (project) | packages | tests may also import |', '|---|---|---|---|', ...rows].join('\n');
}
