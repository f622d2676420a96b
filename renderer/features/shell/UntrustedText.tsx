import { Fragment, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { firstSegments, lineCount, segments, type Segment } from '../../model/untrustedText.js';
import { useShowAll } from './showAll.js';
import './shell.css';

/** Code points an inline text shows before "show all". */
const INLINE_LIMIT = 160;
/** Code points a block renders while collapsed (its height is bounded by CSS; this bounds the DOM). */
const BLOCK_LIMIT = 1500;

interface Props {
  /** The string as the agent or application supplied it. */
  text: string;
  /** A value or typed text: line breaks break lines, the height is bounded with "show all". Otherwise one line of marks. */
  block?: boolean;
  /** Inline: code points shown before "show all". */
  limit?: number;
  /** False inside a control (a button row), where a second button cannot go: the text is cut with "…" and shown whole elsewhere. */
  expandable?: boolean;
  testId?: string;
  /**
   * A block whose end must be seen (a remote_exec command, a long typed text or new value): its last character is followed by an
   * "end" mark carrying this approval id (`data-end-of`), rendered only when nothing is cut, inside
   * the collapsed clip — on screen only when the end of the text is.
   */
  endOf?: string;
  /** A block tells whether all of it is shown now (nothing cut, nothing clipped), so the card can say when it is not. */
  onWhole?: (whole: boolean) => void;
}

/**
 * A string an agent (or an application an agent drives) supplied, shown so that it cannot lie
 * (docs/supervision.md#what-the-ui-shows): hidden and direction-changing characters as marked
 * escapes, line breaks as ↵, spaces at the ends as ␣, the whole isolated left-to-right so it cannot
 * reorder what is around it, and its size bounded until the person asks for all of it. Each mark
 * carries the characters it stands for (`data-raw`): the marks and the text join to the exact string.
 */
export function UntrustedText({ text, block = false, limit, expandable = true, testId, endOf, onWhole }: Props) {
  const segs = useMemo(() => segments(text), [text]);
  const showAll = useShowAll();
  const [all, setAll] = useState(showAll === 'whole');
  const clip = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  const { shown, cut } = all ? { shown: segs, cut: false } : firstSegments(segs, limit ?? (block ? BLOCK_LIMIT : INLINE_LIMIT));
  useLayoutEffect(() => {
    const el = clip.current;
    if (!block || el === null) return;
    const measure = () => setOverflows(el.scrollHeight > el.clientHeight + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [block, text, all]);
  const whole = all || (!cut && !overflows);
  useLayoutEffect(() => onWhole?.(whole), [onWhole, whole]);
  if (text === '')
    return (
      <span className="untrusted-empty" data-testid={testId} data-untrusted="">
        empty
      </span>
    );
  const body = (
    <bdi dir="ltr" className="untrusted" data-untrusted="" data-testid={testId}>
      {shown.map((s, i) => (
        <Fragment key={i}>{renderSegment(s, block)}</Fragment>
      ))}
    </bdi>
  );
  const toggle = expandable && (cut || all || overflows) && (
    <button
      type="button"
      className="untrusted-toggle"
      data-testid="untrusted-toggle"
      aria-expanded={all}
      onClick={(e) => {
        e.stopPropagation();
        if (typeof showAll === 'function' && !all) showAll();
        else setAll(!all);
      }}
    >
      {all ? 'show less' : `show all (${block ? `${lineCount(segs)} lines, ` : ''}${[...text].length} characters)`}
    </button>
  );
  if (!block)
    return (
      <>
        {body}
        {cut && '…'}
        {toggle !== false && <> {toggle}</>}
      </>
    );
  return (
    <div className={`untrusted-block${all ? ' open' : ''}`}>
      <div ref={clip} className="untrusted-clip" data-testid={testId === undefined ? undefined : `${testId}-box`}>
        {body}
        {cut && '…'}
        {endOf !== undefined && !cut && (
          <span className="untrusted-end" data-end-of={endOf} data-raw="" data-testid="untrusted-end" title="the text ends here">
            end
          </span>
        )}
      </div>
      {toggle}
    </div>
  );
}

function renderSegment(s: Segment, block: boolean): ReactNode {
  switch (s.kind) {
    case 'text':
      return s.text;
    case 'escape':
      return (
        <span className={`esc esc-${s.why}`} role="img" aria-label={s.name} title={s.name} data-raw={s.text}>
          {s.label}
        </span>
      );
    case 'newline':
      return (
        <>
          <span className="esc esc-newline" role="img" aria-label={`line break (${s.label})`} title={`line break (${s.label})`} data-raw={s.text}>
            {s.label === 'LF' ? '↵' : `↵ ${s.label}`}
          </span>
          {block && <br />}
        </>
      );
    case 'space': {
      const n = [...s.text].length;
      const what = /^ +$/.test(s.text) ? (n === 1 ? 'space' : 'spaces') : 'blank characters';
      const label = `${n} ${what} ${s.edge === 'inside' ? 'in a row' : `at the ${s.edge}`}`;
      // A run inside the text always shows its count: a row of ␣ could itself be long enough to push what follows away.
      return (
        <span className="esc-space" role="img" aria-label={label} title={label} data-raw={s.text}>
          {n <= 8 && s.edge !== 'inside' ? '␣'.repeat(n) : `␣×${n}`}
        </span>
      );
    }
  }
}
