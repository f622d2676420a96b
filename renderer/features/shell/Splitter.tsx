import { useRef, type KeyboardEvent, type PointerEvent } from 'react';
import { PANES, keyWidth, type GrowKey, type PaneName, type PaneWidths } from '../../model/paneLayout.js';
import { setPaneWidths } from './paneWidths.js';
import './shell.css';

interface Props {
  /** The pane this separator resizes. */
  pane: PaneName;
  /** What the pane is, for assistive tech ("Sidebar", "Approval queue"). */
  label: string;
  /** The id of the pane's element. */
  controls: string;
  /** The pane's size as laid out now: its width, or its height for a pane below the separator. */
  width: number;
  /** The largest it may be now (the rest of the layout keeps its minimums). */
  max: number;
  /** The arrow that enlarges the pane: ArrowRight for a pane left of the separator, ArrowLeft for one right of it, ArrowUp for one below it. */
  grows: GrowKey;
  /** The other panes' widths as laid out now: kept as they are, so that the one being moved is not given back to a pane that would otherwise give way first. */
  others: Partial<PaneWidths>;
  testId: string;
}

/**
 * A separator between two panes (the WAI-ARIA window splitter): drag it, or focus it and use the
 * arrow keys (Page Up/Down for big steps, Home/End for the smallest and largest). Its value is
 * the width (or, between panes one above the other, the height) of the pane it resizes, in CSS pixels.
 */
export function Splitter({ pane, label, controls, width, max, grows, others, testId }: Props) {
  const drag = useRef<{ x: number; width: number } | undefined>(undefined);
  const { min } = PANES[pane];
  const across = grows === 'ArrowUp' || grows === 'ArrowDown';
  const sign = grows === 'ArrowRight' || grows === 'ArrowDown' ? 1 : -1;
  const at = (e: PointerEvent) => (across ? e.clientY : e.clientX);
  const set = (w: number) => setPaneWidths({ ...others, [pane]: Math.round(Math.min(Math.max(w, min), max)) });
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const w = keyWidth(e.key, width, min, max, grows);
    if (w === undefined) return;
    e.preventDefault();
    // The queue's keys (A, D, S, arrows) must not also act on a card.
    e.stopPropagation();
    set(w);
  };
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    e.currentTarget.focus();
    drag.current = { x: at(e), width };
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (drag.current !== undefined) set(drag.current.width + sign * (at(e) - drag.current.x));
  };
  const onPointerEnd = () => {
    drag.current = undefined;
  };
  return (
    <div
      className={`splitter splitter-${across ? 'horizontal' : 'vertical'}`}
      role="separator"
      aria-orientation={across ? 'horizontal' : 'vertical'}
      aria-label={`Resize: ${label}`}
      aria-controls={controls}
      aria-valuenow={width}
      aria-valuemin={min}
      aria-valuemax={max}
      aria-valuetext={`${label} ${width} pixels ${across ? 'high' : 'wide'}`}
      tabIndex={0}
      data-testid={testId}
      data-keys="own"
      onKeyDown={onKeyDown}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerEnd}
      onPointerCancel={onPointerEnd}
    />
  );
}
