// Risk hints (docs/supervision.md#risk-hints): words on a card that deserve a second look, found
// on what a person reads, not on the code points an agent chose. A soft hyphen, a zero-width space,
// a Cyrillic е, fullwidth or mathematical letters all leave "Delete" looking like "Delete", so the
// words are matched on a skeleton of the text; the characters that hide or reorder text earn hints
// of their own.
import unhomoglyph from 'unhomoglyph';
import { DIRECTION_HINT, HIDDEN_HINT, LOOKALIKE_HINT, SHELL_HINT, SHELL_HINTS, hiddenCharHints } from '../../../protocol/index.js';

/** Words that deserve a second look before approving. */
export const RISK_WORDS = [
  'delete',
  'remove',
  'erase',
  'destroy',
  'send',
  'submit',
  'pay',
  'purchase',
  'buy',
  'order',
  'transfer',
  'format',
  'wipe',
  'reset',
  'uninstall',
  'overwrite',
  'discard',
  'publish',
  'confirm',
  'sign',
] as const;

/** Controls break words (a newline between two words is a space to the reader). */
const CONTROLS = /[\p{Cc}\p{Zl}\p{Zp}]/gu;
/** Shown as nothing: removed, so "De\u00ADlete" is the word it looks like. */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const MARKS = /\p{M}/gu;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const UNSPACED = /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]$/u;

/**
 * What a text looks like, for matching words: NFKC (fullwidth, mathematical and other compatibility
 * letters become plain ones), controls as spaces, invisible characters removed, lower case, each
 * character mapped to its prototype by Unicode's confusables table (UTS #39, through `unhomoglyph`),
 * and accents dropped. Two texts that look alike have the same skeleton; it is not for reading
 * (`m` becomes `rn`).
 */
export function skeleton(text: string): string {
  const visible = text.normalize('NFKC').replace(CONTROLS, ' ').replace(INVISIBLE, '');
  return unhomoglyph(visible.toLowerCase()).toLowerCase().normalize('NFD').replace(MARKS, '');
}

/** The plain reading of a text, without look-alike mapping: a risk word found only in the skeleton was disguised. */
function plainReading(text: string): string {
  return text.replace(CONTROLS, ' ').replace(INVISIBLE, '').toLowerCase();
}

const WORD_SKELETONS = RISK_WORDS.map((w) => ({ hint: w.charAt(0).toUpperCase() + w.slice(1), word: w, skeleton: skeleton(w) }));

/**
 * The risk words at the start of a word of `text`: after anything but a letter or digit
 * (`file:delete`, `re-send`), or after a letter of a script written without spaces between words
 * (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar: `ファイルをdelete`), where Unicode's word
 * rules (UAX #29) start a word too. A letter of another alphabet glues (`Дsend` is one word).
 */
function wordStarts(text: string, words: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const w of words) {
    for (let at = text.indexOf(w); at >= 0 && !found.has(w); at = text.indexOf(w, at + 1)) {
      const before = [...text.slice(Math.max(0, at - 2), at)].at(-1);
      if (before === undefined || !LETTER_OR_DIGIT.test(before) || UNSPACED.test(before)) found.add(w);
    }
  }
  return found;
}

/**
 * Risk hints for the texts a card shows (the target's name, the text to set or type, the
 * ancestors' names, the window title, the keys): the risk words, by their skeleton, at the start
 * of a word; then "Look-alike characters" when a word was found only through its skeleton; then
 * "Text direction override" and "Hidden characters" when any text holds such characters.
 */
export function riskHints(texts: readonly (string | undefined)[]): string[] {
  const words = new Set<string>();
  const chars = new Set<string>();
  let disguised = false;
  for (const t of texts) {
    if (t === undefined || t === '') continue;
    const bySkeleton = wordStarts(
      skeleton(t),
      WORD_SKELETONS.map((w) => w.skeleton),
    );
    if (bySkeleton.size === 0) {
      for (const h of hiddenCharHints(t)) chars.add(h);
      continue;
    }
    const plain = wordStarts(plainReading(t), RISK_WORDS);
    for (const w of WORD_SKELETONS) {
      if (!bySkeleton.has(w.skeleton)) continue;
      words.add(w.hint);
      if (!plain.has(w.word)) disguised = true;
    }
    for (const h of hiddenCharHints(t)) chars.add(h);
  }
  return [
    ...WORD_SKELETONS.filter((w) => words.has(w.hint)).map((w) => w.hint),
    ...(disguised ? [LOOKALIKE_HINT] : []),
    ...[DIRECTION_HINT, HIDDEN_HINT].filter((h) => chars.has(h)),
  ];
}

// Shell commands (remote_exec). A shell reads bytes, not looks, so these are matched on what the
// shell would run — quotes and backslashes dropped (`r''m`, `\rm` and `"rm"` are all rm), `$IFS`
// read as a space, continued lines joined — not on a skeleton: a fullwidth ｒｍ runs nothing.

/** Starts a new simple command: the separators and groupings of sh. */
const COMMAND_BREAK = /\|\||&&|[;&|\n(){}`]|\$\(|<\(/;
/** Words that run the rest of the line as a command (their options skipped). */
const PREFIXES = new Set(['command', 'exec', 'env', 'nohup', 'nice', 'time', 'xargs', 'timeout', 'stdbuf', 'setsid']);
const ROOT = new Set(['sudo', 'doas', 'pkexec', 'su', 'run0']);
const SHELLS = '(?:ba|da|z|k|c|tc|fi|a|mk)?sh|busybox\\s+sh';
/** `| sh`, `| sudo -E bash`, `|/bin/sh -s`. */
const PIPE_TO_SHELL = new RegExp(`(?<!\\|)\\|(?!\\|)\\s*(?:(?:sudo|doas)\\s+(?:-\\S+\\s+)*)?(?:env\\s+)?(?:[\\w./-]*/)?(?:${SHELLS})(?![\\w.-])`);
/** A download command's name where a word starts: `curl`, `/usr/bin/wget`. */
const DOWNLOAD = /(?:^|[\s(`])(?:[\w./-]*\/)?(?:curl|wget)(?![\w.-])/;
/** What ends a pipeline: `;`, `&`, a newline, or `||` (what is left between them pipes with `|`). */
const PIPELINE_BREAK = /\|\||[;&\n]/;
/** A download substituted into a command: `<(curl`, `$(wget`, `` `curl ``. */
const RUN_DOWNLOAD = /(?:<\(|\$\(|`)\s*(?:[\w./-]*\/)?(?:curl|wget)(?![\w.-])/;
/**
 * `f(){ f|f& };f`, `:(){ :|:& };:`. The name starts where a name can (never inside a longer one)
 * and the body is short, so a long run of letters or of `f(){` costs linear time, not quadratic.
 */
const FORK_BOMB = /(?<![\w:.-])([\w:.-]{1,64})\s*\(\)\s*\{[^}]{0,200}?\1\s*\|\s*\1\s*&/;
/** A redirection's target: `> /etc/x`, `>> ~/.bashrc`, `&> /dev/sda`, `>| f`. */
const REDIRECT = />{1,2}\|?\s*([^\s;&|<>()]+)/g;
/** Long enough to push the rest of a line out of sight; indentation stays below it. */
const SPACE_RUN = /[\t\p{Zs}]{16}/u;
/**
 * Where a write changes the system or what runs at the next login: system folders, disk devices
 * (not /dev/null and its kin), and a home's ssh keys and shell or session startup files.
 */
const SYSTEM_TARGET =
  /^(?:\/(?:etc|usr|boot|efi|bin|sbin|lib|lib32|lib64|libx32|opt|sys|proc|root|srv|var(?!\/tmp(?:\/|$)))(?:\/|$)|\/dev\/(?!(?:null|zero|full|random|urandom|tty|stdin|stdout|stderr|fd\/\S*)$)|(?:~|\$HOME|\$\{HOME\}|\/home\/[^/\s]+|\/root)\/\.(?:ssh|bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zprofile|zshenv|zlogin|xinitrc|xprofile|xsessionrc|pam_environment|gnupg|config\/autostart|config\/systemd|local\/bin)(?:\/|$))/;
/** chmod modes that let everyone write (the others' digit has its write bit): 777, 0666, 1777, a+w, o+rwx. */
const WORLD_MODE = /^(?:0?[0-7]?[0-7][0-7][2367]|[ugo]*[ao][ugo]*[+=][rwxXst]*w[rwxXst]*)$/;

/**
 * `curl … |` (not `||`): a download whose pipeline goes on after it. Found piece by piece, each
 * scanned once, where one pattern over the whole text retried from every `curl` to the end.
 */
function pipesDownload(text: string): boolean {
  for (const piece of text.split(PIPELINE_BREAK)) {
    const m = DOWNLOAD.exec(piece);
    if (m !== null && piece.indexOf('|', m.index + m[0].length) >= 0) return true;
  }
  return false;
}

/** The text as the shell would read it (see above). */
function shellReading(command: string): string {
  return command
    .replace(/\\\r?\n/g, '')
    .replace(/\$\{IFS\}|\$IFS(?!\w)/g, ' ')
    .replace(/['"\\]/g, '');
}

const basename = (word: string): string => word.slice(word.lastIndexOf('/') + 1);
const isOption = (word: string): boolean => word.startsWith('-');

/** The hints of one simple command (its words, as the shell splits them). */
function simpleCommandHints(words: string[], found: Set<string>): void {
  let at = 0;
  // Assignments, root and other prefixes before the command itself: `X=1 sudo -E nohup rm -rf /`.
  for (;;) {
    const w = words[at];
    if (w === undefined) return;
    const name = basename(w);
    if (/^\w+=/.test(w)) at++;
    else if (ROOT.has(name)) {
      found.add(SHELL_HINT.asRoot);
      at++;
      while (words[at] !== undefined && isOption(words[at] as string)) at++;
      if (name === 'su') return;
    } else if (PREFIXES.has(name)) {
      at++;
      while (words[at] !== undefined && (isOption(words[at] as string) || /^\w+=/.test(words[at] as string))) at++;
    } else break;
  }
  const name = basename(words[at] ?? '');
  const args = words.slice(at + 1);
  const targets = args.filter((a) => !isOption(a));
  switch (name) {
    case 'rm':
      if (args.some((a) => /^-[a-zA-Z]*[rR]/.test(a) || a === '--recursive')) found.add(SHELL_HINT.recursiveDelete);
      break;
    case 'mke2fs':
    case 'mkswap':
    case 'wipefs':
      found.add(SHELL_HINT.formatDisk);
      break;
    case 'dd':
      if (args.some((a) => a.startsWith('of='))) found.add(SHELL_HINT.rawWrite);
      if (args.some((a) => a.startsWith('of=') && SYSTEM_TARGET.test(a.slice(3)))) found.add(SHELL_HINT.systemWrite);
      break;
    case 'chmod':
      if (args.some((a) => WORLD_MODE.test(a))) found.add(SHELL_HINT.worldWritable);
      break;
    case 'tee':
      if (targets.some((a) => SYSTEM_TARGET.test(a))) found.add(SHELL_HINT.systemWrite);
      break;
    case 'cp':
    case 'mv':
    case 'install':
    case 'ln':
    case 'rsync':
      if (targets.length > 1 && SYSTEM_TARGET.test(targets.at(-1) ?? '')) found.add(SHELL_HINT.systemWrite);
      break;
    case 'sed':
      if (args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place')) && targets.some((a) => SYSTEM_TARGET.test(a)))
        found.add(SHELL_HINT.systemWrite);
      break;
    default:
      if (/^mkfs(?:\.|$)/.test(name)) found.add(SHELL_HINT.formatDisk);
  }
}

/**
 * The shell hints of a command (docs/supervision.md#risk-hints), in SHELL_HINTS order: what it
 * pipes into a shell, downloads it pipes or runs, recursive deletes, writes to system and startup
 * files, root, disk formatting, raw writes, world-writable modes, fork bombs, and long runs of
 * spaces. They are words for a second look, not proof: a shell has endless ways to say the same.
 */
export function shellHints(command: string): string[] {
  const found = new Set<string>();
  if (SPACE_RUN.test(command)) found.add(SHELL_HINT.spaceRun);
  const text = shellReading(command);
  if (PIPE_TO_SHELL.test(text)) found.add(SHELL_HINT.pipeToShell);
  if (pipesDownload(text)) found.add(SHELL_HINT.pipeDownload);
  if (RUN_DOWNLOAD.test(text)) found.add(SHELL_HINT.runDownload);
  if (FORK_BOMB.test(text)) found.add(SHELL_HINT.forkBomb);
  for (const m of text.matchAll(REDIRECT)) if (SYSTEM_TARGET.test(m[1] ?? '')) found.add(SHELL_HINT.systemWrite);
  for (const part of text.split(COMMAND_BREAK)) {
    // A redirection is not an argument: `rm -rf x 2>/dev/null` is rm with two words.
    const words = part
      .replace(/\d*>{1,2}\|?\s*\S*/g, ' ')
      .split(/\s+/)
      .filter((w) => w !== '');
    if (words.length > 0) simpleCommandHints(words, found);
  }
  return SHELL_HINTS.filter((h) => found.has(h));
}

/**
 * The risk hints of text an agent would type (docs/supervision.md#risk-hints): typed into a
 * terminal, text is a command, and a typing card cannot know whether the field is one, so the
 * shell hints of `rm -rf ~/` or `curl … | sh` come first wherever it is typed, then the risk words
 * and characters of riskHints for the other texts the card shows.
 */
export function typedRiskHints(typed: string | undefined, others: readonly (string | undefined)[]): string[] {
  return [...(typed === undefined ? [] : shellHints(typed)), ...riskHints([typed, ...others])];
}

/** A remote_exec command's risk hints: what its shell would do first, then the risk words and characters of riskHints. */
export function commandRiskHints(command: string): string[] {
  return [...shellHints(command), ...riskHints([command])];
}

// A question's choices are the agent's words, shown in the person's queue next to Overseer's own
// controls. A choice that reads like one of them ("Emergency stop", "✓ Approved") is marked on the
// card: picking it only answers the question (docs/supervision.md#questions-and-handoffs).

/** The labels and states of Overseer's own controls a choice could pass for. */
export const OVERSEER_CONTROLS = [
  'Approve',
  'Approved',
  'Deny',
  'Denied',
  'Allow',
  'Allowed',
  'Allow for session',
  'Allow for the session',
  'Confirm',
  'Cancel',
  'Emergency stop',
  'Confirm emergency stop',
  'Stop',
  'Stopped',
  'Pause',
  'Paused',
  'Resume',
  'Re-arm',
  'Rearmed',
  'Answer',
  'Decline',
  'Declined',
  'Give control back',
  'Disconnect',
  'Verified',
] as const;

/** A label reduced to its letters and digits as a person reads them: compatibility forms, look-alikes, case, marks, spacing, symbols such as ✓ ✗ and key hints such as "(A)" gone. */
function controlReading(label: string): string {
  const letters = (t: string): string => t.replace(/[^\p{L}\p{N}]/gu, '');
  return letters(skeleton(letters(label.normalize('NFKC').replace(/\([^)]{0,3}\)/g, ''))));
}

const CONTROL_READINGS = new Map(OVERSEER_CONTROLS.map((c) => [controlReading(c), c]));

/** The Overseer control a choice's label reads as (`"✓ Аpproved"` → `Approved`), or undefined. */
export function imitatedControl(label: string): string | undefined {
  return CONTROL_READINGS.get(controlReading(label));
}
