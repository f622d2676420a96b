// Outgoing method calls without dbus-next's generic marshaller: a cold read sends thousands of
// small calls (GetExtents 'u', Properties.Get 'ss', GetChildren '', ...), and dbus-next 0.10.2
// spends ≈78 µs on each (a signature parse per call, the `put` writer, several buffers and
// copies). This writes the same bytes directly, for METHOD_CALLs whose body is only strings,
// object paths and 32-bit integers; anything else, or anything dbus-next would refuse, goes
// through dbus-next's own path, which then marshals (or throws) exactly as before.

const METHOD_CALL = 1;
const LITTLE_ENDIAN = 108; // 'l'
const PROTOCOL_VERSION = 1;
const MAX_BODY_TYPES = 16;
const SHORT_ASCII = 96;

/** The parts of a dbus-next Message that the wire format of a method call is made of. */
export interface CallMessage {
  type?: unknown;
  serial?: unknown;
  flags?: unknown;
  path?: unknown;
  interface?: unknown;
  member?: unknown;
  errorName?: unknown;
  replySerial?: unknown;
  destination?: unknown;
  sender?: unknown;
  signature?: unknown;
  body?: unknown;
  unixFd?: unknown;
}

/** Body signatures this marshaller writes: only the basic types whose encoding it knows. */
function supportedSignature(signature: string): boolean {
  if (signature.length > MAX_BODY_TYPES) return false;
  for (let i = 0; i < signature.length; i++) {
    const c = signature[i];
    if (c !== 's' && c !== 'o' && c !== 'u' && c !== 'i') return false;
  }
  return true;
}

/** A header string (or body string) dbus-next would write: a string without NUL. */
const okString = (value: unknown): value is string => typeof value === 'string' && !value.includes('\0');
/** dbus-next writes a header field only when its value is truthy. */
const present = (value: unknown): boolean => Boolean(value);
const align4 = (n: number): number => (n + 3) & ~3;
const align8 = (n: number): number => (n + 7) & ~7;

/** Pads to 8 with zeros and writes a header field's code and its variant signature (one char); the new position. */
function writeField(buf: Buffer, pos: number, code: number, sig: number): number {
  const at = align8(pos);
  if (at > pos) buf.fill(0, pos, at);
  buf[at] = code;
  buf[at + 1] = 1;
  buf[at + 2] = sig;
  buf[at + 3] = 0;
  return at + 4;
}

/** Writes an 's' or 'o' (already 4-aligned): u32 byte length, UTF-8, NUL; the new position. */
function writeText(buf: Buffer, pos: number, value: string, len: number): number {
  buf.writeUInt32LE(len, pos);
  const start = pos + 4;
  if (len === value.length && len <= SHORT_ASCII) {
    // ASCII (a byte per UTF-16 unit only then): cheaper than Buffer#write's argument handling
    for (let i = 0; i < len; i++) buf[start + i] = value.charCodeAt(i);
  } else {
    buf.write(value, start, len, 'utf8');
  }
  buf[start + len] = 0;
  return start + len + 1;
}

/**
 * The whole message on the wire, byte for byte what dbus-next's `marshallMessage` gives, or
 * undefined when this message is not one of the simple calls (the caller then uses dbus-next).
 * Leaves `msg` as `marshallMessage` does (signature and body reassigned, unixFd zeroed).
 */
export function marshalCall(msg: CallMessage): Buffer | undefined {
  // ---- decide, without side effects, that this is a message we write exactly as dbus-next ----
  const type = msg.type === undefined || msg.type === 0 ? METHOD_CALL : msg.type;
  if (type !== METHOD_CALL) return undefined;
  const serial = msg.serial;
  if (typeof serial !== 'number' || !Number.isInteger(serial) || serial < 1 || serial > 0xffffffff) return undefined;
  const flags = msg.flags === undefined || msg.flags === null || msg.flags === 0 ? 0 : msg.flags;
  if (typeof flags !== 'number' || !Number.isInteger(flags) || flags < 0 || flags > 0xff) return undefined;
  if (present(msg.errorName) || present(msg.replySerial) || present(msg.sender) || present(msg.unixFd)) return undefined;
  const { path, interface: iface, member, destination } = msg;
  if (!okString(path) || path === '' || !okString(member) || member === '') return undefined;
  if (present(iface) && !okString(iface)) return undefined;
  if (present(destination) && !okString(destination)) return undefined;
  const signature = msg.signature === undefined ? '' : msg.signature;
  if (typeof signature !== 'string' || !supportedSignature(signature)) return undefined;
  const body = msg.body === undefined ? [] : msg.body;
  if (!Array.isArray(body) || body.length !== signature.length) return undefined;
  for (let i = 0; i < body.length; i++) {
    const value: unknown = body[i];
    const c = signature[i];
    if (c === 's' || c === 'o') {
      if (!okString(value)) return undefined;
    } else if (typeof value !== 'number' || !Number.isInteger(value)) {
      return undefined;
    } else if (c === 'u' ? value < 0 || value > 0xffffffff : value < -0x80000000 || value > 0x7fffffff) {
      return undefined;
    }
  }

  // ---- sizes: header fields a(yv) start at 16, each struct 8-aligned; the body at an 8-aligned offset ----
  const pathLen = Buffer.byteLength(path);
  const ifaceLen = present(iface) ? Buffer.byteLength(iface as string) : -1;
  const memberLen = Buffer.byteLength(member);
  const destLen = present(destination) ? Buffer.byteLength(destination as string) : -1;
  let end = 16;
  end = align8(end) + 4 + 4 + pathLen + 1;
  if (ifaceLen >= 0) end = align8(end) + 4 + 4 + ifaceLen + 1;
  end = align8(end) + 4 + 4 + memberLen + 1;
  if (destLen >= 0) end = align8(end) + 4 + 4 + destLen + 1;
  if (signature !== '') end = align8(end) + 4 + 1 + signature.length + 1;
  const fieldsLength = end - 16;
  const bodyStart = align8(end);
  const stringLens: number[] = [];
  let bodyLength = 0;
  for (let i = 0; i < body.length; i++) {
    const c = signature[i];
    bodyLength = align4(bodyLength);
    if (c === 's' || c === 'o') {
      const n = Buffer.byteLength(body[i] as string);
      stringLens.push(n);
      bodyLength += 4 + n + 1;
    } else {
      bodyLength += 4;
    }
  }

  // ---- write; every padding byte is written explicitly (the buffer is not zeroed) ----
  const buf = Buffer.allocUnsafe(bodyStart + bodyLength);
  buf[0] = LITTLE_ENDIAN;
  buf[1] = METHOD_CALL;
  buf[2] = flags;
  buf[3] = PROTOCOL_VERSION;
  buf.writeUInt32LE(bodyLength, 4);
  buf.writeUInt32LE(serial, 8);
  buf.writeUInt32LE(fieldsLength, 12);
  let pos = writeField(buf, 16, 1, 0x6f); // path: 'o'
  pos = writeText(buf, pos, path, pathLen);
  if (ifaceLen >= 0) {
    pos = writeField(buf, pos, 2, 0x73); // interface: 's'
    pos = writeText(buf, pos, iface as string, ifaceLen);
  }
  pos = writeField(buf, pos, 3, 0x73); // member: 's'
  pos = writeText(buf, pos, member, memberLen);
  if (destLen >= 0) {
    pos = writeField(buf, pos, 6, 0x73); // destination: 's'
    pos = writeText(buf, pos, destination as string, destLen);
  }
  if (signature !== '') {
    pos = writeField(buf, pos, 8, 0x67); // signature: 'g'
    buf[pos] = signature.length;
    buf.write(signature, pos + 1, 'latin1');
    buf[pos + 1 + signature.length] = 0;
    pos += signature.length + 2;
  }
  if (bodyStart > pos) buf.fill(0, pos, bodyStart);
  pos = bodyStart;
  let s = 0;
  for (let i = 0; i < body.length; i++) {
    const c = signature[i];
    const at = bodyStart + align4(pos - bodyStart);
    if (at > pos) buf.fill(0, pos, at);
    pos = at;
    if (c === 's' || c === 'o') {
      pos = writeText(buf, pos, body[i] as string, stringLens[s++] ?? 0);
    } else {
      if (c === 'u') buf.writeUInt32LE((body[i] as number) >>> 0, pos);
      else buf.writeInt32LE((body[i] as number) | 0, pos);
      pos += 4;
    }
  }

  // what marshallMessage leaves on the message: a body in its marshaller format (the same values
  // for these types, in a new array), the defaulted signature, and the fd count when there is a body
  msg.signature = signature;
  msg.body = body.slice();
  if (signature !== '') msg.unixFd = 0;
  return buf;
}

interface Connection {
  state?: unknown;
  message?: unknown;
  stream?: { writable?: boolean; supportsUnixFd?: unknown; write(data: unknown): unknown };
}

/**
 * Sends this connection's simple method calls through `marshalCall`, the rest through dbus-next.
 * Call once the connection is established (dbus-next replaces `message` then); false when the
 * connection does not look like dbus-next 0.10.2's (then nothing changes).
 */
export function installFastCalls(connection: unknown): boolean {
  const conn = connection as Connection | undefined;
  const stream = conn?.stream;
  const generic = conn?.message;
  if (conn?.state !== 'connected' || stream === undefined || typeof stream.write !== 'function' || typeof generic !== 'function') return false;
  conn.message = (msg: CallMessage): unknown => {
    // a closed stream: dbus-next's path reports it
    const data = stream.writable === true ? marshalCall(msg) : undefined;
    if (data === undefined) return (generic as (m: CallMessage) => unknown).call(conn, msg);
    if (stream.supportsUnixFd) stream.write({ data, fds: [] });
    else stream.write(data);
    return undefined;
  };
  return true;
}
