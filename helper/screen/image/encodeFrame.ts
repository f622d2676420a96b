// One screen picture from a raw frame to what goes on the wire: fitted, encoded (JPEG or PNG),
// hashed and base64'd. All of it is CPU-bound, so it runs in the screen tier's encoder worker
// (helper/screen/encoderPool.ts): the helper's RPC loop only hands frames over and gets strings back.
import { createHash } from 'node:crypto';
import { downscale } from './downscale.js';
import { encodeJpeg, DEFAULT_JPEG_QUALITY } from './jpeg.js';
import { encodeFittedPng } from './png.js';

/** A BGRX frame as the encoder takes it (the bytes may live in a SharedArrayBuffer). */
export interface EncodeFrame {
  width: number;
  height: number;
  /** Bytes from one row to the next. */
  stride: number;
  data: Uint8Array;
}

/** What to make of a frame. */
export interface EncodeRequest {
  frame: EncodeFrame;
  /** The box the picture is fitted into (never upscaled). */
  maxWidth: number;
  maxHeight: number;
  format: 'png' | 'jpeg';
  /** JPEG quality 1–100; default DEFAULT_JPEG_QUALITY. */
  quality?: number;
}

/** An encoded picture, ready for the answer. */
export interface EncodedFrame {
  /** base64 of the file. */
  data: string;
  mime: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  /** SHA-256 of the file's bytes, hex. */
  sha256: string;
  /** The file's size. */
  bytes: number;
  /** Time spent fitting and encoding. */
  encodeMs: number;
}

/** Fits, encodes, hashes and base64s one frame. */
export function encodeFrame(request: EncodeRequest): EncodedFrame {
  const started = performance.now();
  const { frame, maxWidth, maxHeight, format } = request;
  const raw = { width: frame.width, height: frame.height, data: frame.data, format: 'bgrx' as const, stride: frame.stride };
  let fitted: { bytes: Buffer; width: number; height: number };
  if (format === 'jpeg') {
    // jpeg-js takes a packed RGBA image.
    const scaled = downscale(raw, maxWidth, maxHeight, 4);
    fitted = { bytes: encodeJpeg(scaled, request.quality ?? DEFAULT_JPEG_QUALITY), width: scaled.width, height: scaled.height };
  } else {
    // PNG in one pass from the frame: no RGB copy of it in between.
    const { png, width, height } = encodeFittedPng(raw, maxWidth, maxHeight);
    fitted = { bytes: png, width, height };
  }
  const { bytes, width, height } = fitted;
  return {
    data: bytes.toString('base64'),
    mime: format === 'jpeg' ? 'image/jpeg' : 'image/png',
    width,
    height,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.length,
    encodeMs: performance.now() - started,
  };
}
