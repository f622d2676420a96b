// The internal modules of dbus-next 0.10.2 (untyped CommonJS) that dbus.ts uses to receive one
// reply's body as raw bytes: the message parser it replaces per connection, and the pieces that
// parser and the generic decode are made of.

declare module 'dbus-next/lib/message.js' {
  /** Reads messages from a connection's stream and hands each (in marshaller format) to onMessage. */
  export type Unmarshal = (stream: unknown, onMessage: (message: Record<string, unknown>) => void, opts: unknown) => void;
  const message: { unmarshalMessages: Unmarshal };
  export default message;
}

declare module 'dbus-next/lib/dbus-buffer.js' {
  /** A parsed signature element. */
  export interface SignatureTree {
    type: string;
    child: SignatureTree[];
  }
  /** A cursor over a message's bytes, aligned relative to startPos. */
  class DBusBuffer {
    constructor(buffer: Buffer, startPos: number, endian: number, fds: unknown, options: unknown);
    pos: number;
    align(power: number): void;
    readArray(eleType: SignatureTree, arrayBlobSize: number): unknown[];
    read(signature: string): unknown[];
  }
  export default DBusBuffer;
}

declare module 'dbus-next/lib/signature.js' {
  import type { SignatureTree } from 'dbus-next/lib/dbus-buffer.js';
  const signature: { parseSignature(signature: string): SignatureTree[] };
  export default signature;
}

declare module 'dbus-next/lib/constants.js' {
  const constants: { headerTypeName: (string | null)[]; endianness: { le: number; be: number } };
  export default constants;
}

declare module 'dbus-next/lib/marshall-compat.js' {
  const compat: {
    messageToJsFmt(message: { signature: string; body: unknown[] }): { body: unknown[] };
    /** A whole message on the wire (little-endian) from a Message-like object with a body in JS format. */
    marshallMessage(message: Record<string, unknown>): [Buffer, unknown[]];
  };
  export default compat;
}

declare module 'dbus-next/lib/marshall.js' {
  /** Marshals a body (in marshaller format) to little-endian bytes, aligned as if it started at `offset`. */
  function marshall(signature: string, data: unknown[], offset?: number): Buffer;
  export default marshall;
}
