import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, it } from 'node:test';

// The code cites what it implements in docs/: these tests keep every citation pointing at a file
// and a heading that exist, and keep citations of the old outside specification from coming back.

const root = new URL('..', import.meta.url).pathname;

/** Built from parts so that this file does not cite it itself. */
const OLD_CITATION = `SPEC ${'\u00a7'}`;
/** The word "issue" and a number (with or without "#"): a tracker's numbers mean nothing to a reader of the repository. Built from parts so this file does not match itself. */
const ISSUE_CITATION = new RegExp(`\\b${'[Ii]ssues?'} #?\\d+`, 'g');
/** `docs/<name>.md` with an optional `#anchor`, anywhere in a file. */
const DOCS_CITATION = /(?<![\w./-])docs\/([A-Za-z0-9_-]+)\.md(?:#([A-Za-z0-9_-]+))?/g;
/** A repository path in backticks, such as `main/core/tools/actTool.ts` (a glob or a placeholder is not one). */
const REPO_PATH =
  /`((?:base|bench|bin|desktop|docs|e2e|helper|main|preload|protocol|renderer|rpc|scripts)\/[A-Za-z0-9_./-]+\.(?:ts|tsx|mjs|py|c|md|yml|json))`/g;
/** A markdown link inside docs/: `](other.md#anchor)`, `](other.md)` or `](#anchor)`. */
const RELATIVE_LINK = /\]\((?!https?:|mailto:)([A-Za-z0-9_-]+\.md)?(?:#([A-Za-z0-9_-]+))?\)/g;
const BINARY = /\.(png|ico|icns|jpg|jpeg|gif|webp|woff2?|ttf|zip|gz|exe|dll|node)$/i;

/** Tracked text files, repository-relative. */
function trackedTextFiles(): { path: string; text: string }[] {
  const paths = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  const out: { path: string; text: string }[] = [];
  for (const path of paths) {
    if (BINARY.test(path) || path.endsWith('package-lock.json')) continue;
    const full = join(root, path);
    if (!existsSync(full)) continue; // deleted in the work tree, not yet committed
    const text = readFileSync(full, 'utf8');
    if (text.includes('\0')) continue;
    out.push({ path, text });
  }
  return out;
}

/** GitHub's heading anchor: lowercase, punctuation dropped (but `-` and `_` kept), spaces to `-`. */
export function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim();
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown file's headings (outside code fences), with GitHub's `-1`, `-2` for repeats. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const f = /^\s*(```|~~~)/.exec(line);
    if (f !== null) {
      if (fence === undefined) fence = f[1];
      else if (f[1] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h === null) continue;
    const base = slug(h[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

describe('citations of docs/', () => {
  const files = trackedTextFiles();
  const anchorCache = new Map<string, Set<string> | undefined>();
  const anchors = (docPath: string): Set<string> | undefined => {
    if (!anchorCache.has(docPath)) {
      const full = join(root, docPath);
      anchorCache.set(docPath, existsSync(full) ? anchorsOf(readFileSync(full, 'utf8')) : undefined);
    }
    return anchorCache.get(docPath);
  };
  const check = (where: string, docPath: string, anchor: string | undefined, broken: string[]): void => {
    const known = anchors(docPath);
    if (known === undefined) broken.push(`${where}: ${docPath} does not exist`);
    else if (anchor !== undefined && !known.has(anchor)) broken.push(`${where}: ${docPath} has no heading #${anchor}`);
  };

  it('finds the documentation and the files that cite it', () => {
    assert.ok(files.length > 100, `only ${files.length} tracked files found`);
    for (const doc of ['docs/tools.md', 'docs/architecture.md', 'docs/supervision.md', 'docs/security.md'])
      assert.ok(anchors(doc) !== undefined, `${doc} is missing`);
  });

  it('cites no outside specification: what the code implements is in docs/', () => {
    const found: string[] = [];
    for (const { path, text } of files) {
      for (let i = text.indexOf(OLD_CITATION); i >= 0; i = text.indexOf(OLD_CITATION, i + 1)) {
        found.push(`${path}:${lineOf(text, i)}: ${text.slice(i, text.indexOf('\n', i) < 0 ? undefined : text.indexOf('\n', i)).slice(0, 80)}`);
      }
    }
    assert.deepEqual(found, [], `cite docs/<name>.md#<heading> instead:\n${found.join('\n')}`);
  });

  it('cites no issue of a tracker outside the repository: the guarantee is named in docs/ instead', () => {
    const found: string[] = [];
    for (const { path, text } of files) {
      for (const m of text.matchAll(ISSUE_CITATION)) found.push(`${path}:${lineOf(text, m.index)}: ${m[0]}`);
    }
    assert.deepEqual(found, [], `cite docs/<name>.md#<heading> instead:\n${found.join('\n')}`);
  });

  it('names an existing file and heading in every docs/<name>.md#<anchor> citation', () => {
    const broken: string[] = [];
    for (const { path, text } of files) {
      for (const m of text.matchAll(DOCS_CITATION)) check(`${path}:${lineOf(text, m.index)}`, `docs/${m[1] ?? ''}.md`, m[2], broken);
    }
    assert.deepEqual(broken, []);
  });

  it('names only files that exist where docs/, the README and CONTRIBUTING point into the repository', () => {
    const missing: string[] = [];
    for (const { path, text } of files.filter((f) => f.path.endsWith('.md'))) {
      for (const m of text.matchAll(REPO_PATH)) {
        const file = m[1] ?? '';
        if (!existsSync(join(root, file))) missing.push(`${path}:${lineOf(text, m.index)}: ${file}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('links within docs/ only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const { path, text } of files.filter((f) => f.path.startsWith('docs/') && f.path.endsWith('.md'))) {
      for (const m of text.matchAll(RELATIVE_LINK)) {
        if (m[1] === undefined && m[2] === undefined) continue;
        const target = m[1] === undefined ? path : posix.join(posix.dirname(path), m[1]);
        check(`${path}:${lineOf(text, m.index)}`, target, m[2], broken);
      }
    }
    assert.deepEqual(broken, []);
  });
});

describe('slug', () => {
  it('makes the anchors GitHub makes', () => {
    assert.equal(slug('Identity and targets'), 'identity-and-targets');
    assert.equal(slug('window_read'), 'window_read');
    assert.equal(slug('`window_read` answer'), 'window_read-answer');
    assert.equal(slug('Pause and the held list'), 'pause-and-the-held-list');
    assert.equal(slug('Nothing an agent sends can take the supervisor down'), 'nothing-an-agent-sends-can-take-the-supervisor-down');
    assert.equal(slug('Out of scope — said plainly'), 'out-of-scope--said-plainly');
    assert.equal(slug('Two credentials, never shared'), 'two-credentials-never-shared');
  });

  it('numbers repeated headings and skips code fences', () => {
    assert.deepEqual([...anchorsOf('# A\n## B\n```\n## C\n```\n## B\n')], ['a', 'b', 'b-1']);
  });
});
