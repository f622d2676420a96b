// Raw reply bodies from dbus-next: for the few replies whose decode is hot (Cache.GetItems of a
// big window: 10k items, each turned into ~15 nested arrays, then copied again by
// messageToJsFmt), the caller decodes the bytes itself. dbus-next has no hook for this, so a
// connection that opts in reads its messages with the parser below: dbus-next's own
// (lib/message.js, 0.10.2) with one change — a method return that the caller asked for raw, with
// the signature it expected, keeps its body as bytes. Every other message is parsed exactly as
// dbus-next parses it, and connections that did not opt in use dbus-next's parser untouched.

import DBusBuffer from 'dbus-next/lib/dbus-buffer.js';
import compat from 'dbus-next/lib/marshall-compat.js';
import constants from 'dbus-next/lib/constants.js';
import messageModule, { type Unmarshal } from 'dbus-next/lib/message.js';
import signatures from 'dbus-next/lib/signature.js';

const LE = constants.endianness.le;
const BE = constants.endianness.be;
const METHOD_RETURN = 2;

/**
 * A reply body kept as bytes. The body starts at an 8-aligned offset of its message, so D-Bus
 * alignment inside it is relative to byte 0 of `bytes`.
 */
export class RawBody {
  constructor(
    readonly signature: string,
    readonly bytes: Buffer,
    readonly littleEndian: boolean,
  ) {}

  /** The body exactly as dbus-next would have delivered it (the generic path). */
  decode(): unknown[] {
    const buffer = new DBusBuffer(this.bytes, 0, this.littleEndian ? LE : BE, null, undefined);
    return compat.messageToJsFmt({ signature: this.signature, body: buffer.read(this.signature) }).body;
  }
}

/** A reply a caller waits for raw: filled in by the parser when it arrives with `signature`. */
export interface RawWanted {
  signature: string;
  raw?: RawBody;
}

interface Stream {
  on(event: 'readable', listener: () => void): void;
  read(size: number, fdSize?: null): (Buffer & { data?: Buffer; fds?: unknown }) | { data: Buffer; fds?: unknown } | null;
}

const wantedByStream = new WeakMap<object, Map<number, RawWanted>>();
const original: Unmarshal | undefined = typeof messageModule.unmarshalMessages === 'function' ? messageModule.unmarshalMessages : undefined;
let installed = false;

/**
 * Lets this connection's stream deliver raw replies; false when this dbus-next does not look
 * like the one the parser was copied from (then every reply is decoded generically).
 * Call before the connection's handshake completes (dbus-next starts its parser then).
 */
export function enableRawReplies(stream: object | undefined): boolean {
  if (stream === undefined || original === undefined) return false;
  if (!installed) {
    messageModule.unmarshalMessages = unmarshalMessages;
    installed = true;
  }
  wantedByStream.set(stream, new Map());
  return true;
}

/** Registers a call's serial whose reply should stay raw; the returned record receives it. */
export function expectRaw(stream: object, serial: number, signature: string): RawWanted | undefined {
  const wanted = wantedByStream.get(stream);
  if (wanted === undefined) return undefined;
  const entry: RawWanted = { signature };
  wanted.set(serial, entry);
  return entry;
}

/** Forgets a registered serial (reply taken, failed or timed out). */
export function forgetRaw(stream: object, serial: number): void {
  wantedByStream.get(stream)?.delete(serial);
}

const HEADER_FIELD = signatures.parseSignature('a(yv)')[0]?.child[0];

/** dbus-next's message parser (lib/message.js), plus the raw-body case. */
function unmarshalMessages(stream: unknown, onMessage: (message: Record<string, unknown>) => void, opts: unknown): void {
  const wanted = typeof stream === 'object' && stream !== null ? wantedByStream.get(stream) : undefined;
  if (wanted === undefined || HEADER_FIELD === undefined || original === undefined) {
    original?.(stream, onMessage, opts);
    return;
  }
  const headerField = HEADER_FIELD;
  const s = stream as Stream;
  let state = 0; // 0: header, 1: fields + body
  let header: Buffer | null = null;
  let fieldsLength = 0;
  let fieldsAndBodyLength = 0;
  let bodyLength = 0;
  let endian = 0;
  s.on('readable', () => {
    for (;;) {
      if (state === 0) {
        header = s.read(16) as Buffer | null;
        if (header === null) break;
        state = 1;
        endian = header.readUInt8(0);
        fieldsLength = endian === LE ? header.readUInt32LE(12) : header.readUInt32BE(12);
        const fieldsLengthPadded = ((fieldsLength + 7) >> 3) << 3;
        bodyLength = endian === LE ? header.readUInt32LE(4) : header.readUInt32BE(4);
        fieldsAndBodyLength = fieldsLengthPadded + bodyLength;
      } else {
        const readBuf = s.read(fieldsAndBodyLength, null);
        // usocket returns { data, fds }
        const fieldsAndBody = readBuf === null ? null : (readBuf.data ?? (readBuf as Buffer));
        if (readBuf === null || fieldsAndBody === null || header === null) break;
        state = 0;
        const messageBuffer = new DBusBuffer(fieldsAndBody, 0, endian, readBuf.fds, opts);
        const fields = messageBuffer.readArray(headerField, fieldsLength) as [number, [unknown, [unknown]]][];
        messageBuffer.align(3);
        const message: Record<string, unknown> = {};
        message['serial'] = endian === LE ? header.readUInt32LE(8) : header.readUInt32BE(8);
        for (const [code, [, [value]]] of fields) {
          const name = constants.headerTypeName[code];
          message[String(name)] = value;
        }
        message['type'] = header[1];
        message['flags'] = header[2];
        const signature = message['signature'];
        if (bodyLength > 0 && typeof signature === 'string' && signature !== '') {
          const entry = message['type'] === METHOD_RETURN ? wanted.get(Number(message['replySerial'])) : undefined;
          if (entry !== undefined && entry.signature === signature) {
            const start = messageBuffer.pos;
            entry.raw = new RawBody(signature, fieldsAndBody.subarray(start, start + bodyLength), endian === LE);
            // The caller takes the body from `entry`; the Message dbus-next builds carries none.
            message['signature'] = '';
          } else {
            message['body'] = messageBuffer.read(signature);
          }
        }
        onMessage(message);
      }
    }
  });
}
