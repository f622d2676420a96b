import { useCallback, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode, type Ref } from 'react';
import { escapeHiddenPlain } from '../../../protocol/index.js';
import { cropView, type PictureRect } from '../../model/screenMarks.js';
import { PictureViewer } from '../shell/PictureViewer.js';
import { ScreenPicture } from './ScreenPicture.js';
import './screen.css';

/** The region a card shows large: a rectangle of the picture and how large to show it. */
export interface CropSpec {
  /** What must be readable, in picture pixels. */
  focus: PictureRect;
  /** CSS px per picture pixel that shows the screen 1:1 (the picture's own downscale undone). */
  scale: number;
  /** The tallest the region may be on the card, and the least context around the focus (CSS px). */
  maxHeight: number;
  margin: number;
  minHeight?: number;
}

interface Props {
  src: string | undefined;
  width: number;
  height: number;
  alt: string;
  testId: string;
  className?: string;
  /** SVG marks in picture pixels, and marks at display scale (see ScreenPicture). */
  marks?: ReactNode;
  overlay?: ReactNode;
  boxRef?: Ref<HTMLDivElement>;
  /** Show the region around `crop.focus` large enough to read instead of the whole picture shrunk. */
  crop?: CropSpec;
  /** What opens, for the control's name: `the window as it looked when checked`. */
  what: string;
}

/** Before the box is measured: a card's usual width. */
const FALLBACK_WIDTH = 360;

/**
 * A card or receipt picture a person can open full size (docs/supervision.md#card-pictures): a
 * control (click, Enter or Space) showing either the whole picture at the box's width or, with
 * `crop`, the region around what matters at a readable scale; it opens the whole picture at its
 * own size, with the same marks, in the viewer.
 */
export function ZoomablePicture({ src, width, height, alt, testId, className, marks, overlay, boxRef, crop, what }: Props) {
  const [open, setOpen] = useState(false);
  const [boxWidth, setBoxWidth] = useState(0);
  const own = useRef<HTMLDivElement | null>(null);
  const setRef = useCallback(
    (el: HTMLDivElement | null) => {
      own.current = el;
      if (typeof boxRef === 'function') boxRef(el);
      else if (boxRef !== undefined && boxRef !== null) (boxRef as { current: HTMLDivElement | null }).current = el;
    },
    [boxRef],
  );
  useLayoutEffect(() => {
    const el = own.current;
    if (el === null || crop === undefined) return;
    setBoxWidth(el.clientWidth);
    if (typeof ResizeObserver === 'undefined') return;
    const seen = new ResizeObserver(() => setBoxWidth(el.clientWidth));
    seen.observe(el);
    return () => seen.disconnect();
  }, [crop === undefined]);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    setOpen(true);
  };
  const picture = (id: string) => (
    <ScreenPicture src={src} width={width} height={height} alt={alt} testId={id} overlay={overlay} {...(className !== undefined ? { className } : {})}>
      {marks}
    </ScreenPicture>
  );
  const view =
    crop !== undefined
      ? cropView({ width, height }, crop.focus, crop.scale, boxWidth > 0 ? boxWidth : FALLBACK_WIDTH, crop.maxHeight, crop.margin, crop.minHeight)
      : undefined;
  return (
    <>
      <div
        ref={setRef}
        className="zoomable"
        role="button"
        tabIndex={0}
        aria-label={`Open ${escapeHiddenPlain(what)} full size`}
        title="Open full size (Enter)"
        data-testid={`${testId}-open`}
        onClick={() => setOpen(true)}
        onKeyDown={onKeyDown}
      >
        {view === undefined ? (
          picture(testId)
        ) : (
          <div className="crop-box" style={{ width: view.width, height: view.height }} data-testid={`${testId}-region`} data-scale={view.scale}>
            <div className="crop-inner" style={{ left: view.left, top: view.top, width: width * view.scale, height: height * view.scale }}>
              {picture(testId)}
            </div>
          </div>
        )}
      </div>
      {open && (
        <PictureViewer title={alt} onClose={() => setOpen(false)}>
          <div className="viewer-picture" style={{ width }}>
            {picture(`${testId}-full`)}
          </div>
        </PictureViewer>
      )}
    </>
  );
}
