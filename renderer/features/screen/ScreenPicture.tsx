import type { ReactNode } from 'react';
import { escapeHiddenPlain } from '../../../protocol/index.js';

interface Props {
  /** data: URL of the picture. */
  src: string;
  width: number;
  height: number;
  alt: string;
  testId: string;
  className?: string;
  /** SVG marks, in picture pixels. */
  children?: ReactNode;
}

/**
 * A screen picture with marks over it. The overlay's viewBox is the picture's own width × height,
 * so a mark drawn at picture pixel (x, y) stays on that pixel at whatever size the picture is shown;
 * the box keeps the picture's aspect before it loads, so nothing below it moves when it does.
 */
export function ScreenPicture({ src, width, height, alt, testId, className, children }: Props) {
  return (
    <div
      className={`screen-picture${className !== undefined ? ` ${className}` : ''}`}
      style={{ aspectRatio: `${width} / ${height}` }}
      data-testid={testId}
      data-width={width}
      data-height={height}
    >
      <img src={src} width={width} height={height} alt={escapeHiddenPlain(alt)} draggable={false} />
      <svg className="screen-marks" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" aria-hidden="true">
        {children}
      </svg>
    </div>
  );
}
