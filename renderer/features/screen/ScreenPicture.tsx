import type { ReactNode, Ref } from 'react';
import { escapeHiddenPlain } from '../../../protocol/index.js';
import './screen.css';

interface Props {
  /** data: URL of the picture; undefined while it is being fetched (the box keeps its size). */
  src: string | undefined;
  width: number;
  height: number;
  alt: string;
  testId: string;
  className?: string;
  /** SVG marks, in picture pixels. */
  children?: ReactNode;
  /** Marks drawn at display scale (HTML placed in percent of the picture): point marks, element outlines. */
  overlay?: ReactNode;
  boxRef?: Ref<HTMLDivElement>;
}

/**
 * A screen picture with marks over it. The overlay's viewBox is the picture's own width × height,
 * so a mark drawn at picture pixel (x, y) stays on that pixel at whatever size the picture is shown;
 * the box keeps the picture's aspect before it loads, so nothing below it moves when it does.
 */
export function ScreenPicture({ src, width, height, alt, testId, className, children, overlay, boxRef }: Props) {
  return (
    <div
      ref={boxRef}
      className={`screen-picture${className !== undefined ? ` ${className}` : ''}`}
      style={{ aspectRatio: `${width} / ${height}` }}
      data-testid={testId}
      data-width={width}
      data-height={height}
    >
      {src !== undefined ? (
        <img src={src} width={width} height={height} alt={escapeHiddenPlain(alt)} draggable={false} />
      ) : (
        <span className="screen-picture-loading" role="img" aria-label={`${escapeHiddenPlain(alt)} (loading)`} />
      )}
      <svg className="screen-marks" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" aria-hidden="true">
        {children}
      </svg>
      {overlay !== undefined && <div className="screen-overlay">{overlay}</div>}
    </div>
  );
}
