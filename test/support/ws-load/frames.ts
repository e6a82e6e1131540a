/**
 * The RFC 6455 framing of the load client, nothing else: a reader that cuts a server's byte stream
 * into frames (unmasked, split across TCP chunks or several in one chunk, 7/16/64-bit lengths,
 * fragmented messages) and hands each to a sink, and the encoder of the masked frames a client
 * sends (pong, close). Pure: no sockets, so it is tested on bytes.
 *
 * @example
 *   const reader = new FrameReader({ text: (buf, s, e) => count(buf, s, e), ping: (p) => sock.write(pongFrame(p)), close: (code, reason) => ..., error: (m) => ... });
 *   sock.on('data', (chunk) => reader.push(chunk));
 */
import { randomBytes } from 'node:crypto';

/** Opcodes of RFC 6455 section 5.2. */
export const OPCODE = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** Close code reported when a close frame carries no status (RFC 6455 section 7.4.1). */
export const NO_STATUS = 1005;

/** Where the reader hands what it read; a text (or binary) message is a range of `buf`, valid only during the call. */
export interface FrameSink {
  /** a whole text or binary message, bytes `start` to `end` of `buf` */
  text(buf: Buffer, start: number, end: number): void;
  /** a ping: answer with `pongFrame(payload)` */
  ping(payload: Buffer): void;
  /** a close frame: its code (`NO_STATUS` when none) and reason; the reader stops reading after it */
  close(code: number, reason: string): void;
  /** the stream broke the protocol; the reader stops reading */
  error(message: string): void;
}

// a message above this is a broken stream, not an event (the gateway's are a few hundred bytes)
const MAX_PAYLOAD = 64 * 1024 * 1024;

/** Cuts a server's byte stream into frames for one socket. */
export class FrameReader {
  // bytes of an unfinished frame, kept as chunks until `needed` bytes are there (no copy per chunk)
  private held: Buffer[] = [];
  private heldBytes = 0;
  private needed = 0;
  private fragments: Buffer[] | null = null;
  private fragmentBytes = 0;
  private done = false;

  constructor(private readonly sink: FrameSink) {}

  /**
   * Reads one TCP chunk, `chunk[0..length)` (all of it by default); the caller may reuse its bytes
   * once this returns (what is kept is copied).
   */
  push(chunk: Buffer, length = chunk.length): void {
    if (this.done) return;
    let buf = chunk;
    let len = length;
    if (this.heldBytes > 0) {
      this.held.push(Buffer.from(chunk.subarray(0, length)));
      this.heldBytes += length;
      if (this.heldBytes < this.needed) return;
      buf = Buffer.concat(this.held, this.heldBytes);
      len = buf.length;
      this.held = [];
      this.heldBytes = 0;
    }
    const at = this.frames(buf, len);
    if (at < len && !this.done) {
      const rest = Buffer.from(buf.subarray(at, len));
      this.held.push(rest);
      this.heldBytes = rest.length;
    }
  }

  /** Reads every whole frame of `buf[0..len)`; answers where the unread rest begins and sets `needed`. */
  private frames(buf: Buffer, len: number): number {
    let at = 0;
    while (!this.done) {
      const left = len - at;
      if (left < 2) return this.wait(at, 2);
      const b0 = buf[at] as number;
      const b1 = buf[at + 1] as number;
      let size = b1 & 0x7f;
      let head = 2;
      if (size === 126) {
        if (left < 4) return this.wait(at, 4);
        size = buf.readUInt16BE(at + 2);
        head = 4;
      } else if (size === 127) {
        if (left < 10) return this.wait(at, 10);
        const high = buf.readUInt32BE(at + 2);
        if (high > 0) return this.fail('frame longer than 4 GiB');
        size = buf.readUInt32BE(at + 6);
        head = 10;
      }
      const masked = (b1 & 0x80) !== 0;
      if (masked) head += 4;
      if (size > MAX_PAYLOAD) return this.fail(`frame of ${size} bytes`);
      if (left < head + size) return this.wait(at, head + size);
      const start = at + head;
      const end = start + size;
      // a server must not mask (RFC 6455 section 5.1); unmasked here anyway so the bytes stay readable
      if (masked) unmask(buf, start - 4, start, end);
      this.frame(b0, buf, start, end);
      at = end;
    }
    return len;
  }

  /** Reads nothing more, not even the rest of the chunk being read (its socket is dropped). */
  stop(): void {
    this.done = true;
  }

  /** Keeps the bytes from `at` until the frame's first `bytes` are there. */
  private wait(at: number, bytes: number): number {
    this.needed = bytes;
    return at;
  }

  private fail(message: string): number {
    this.done = true;
    this.sink.error(message);
    return Number.MAX_SAFE_INTEGER;
  }

  private frame(b0: number, buf: Buffer, start: number, end: number): void {
    const fin = (b0 & 0x80) !== 0;
    const opcode = b0 & 0x0f;
    if ((b0 & 0x70) !== 0) {
      this.fail('reserved bits set without an extension');
      return;
    }
    if (opcode >= 8) {
      if (!fin || end - start > 125) {
        this.fail('fragmented or long control frame');
        return;
      }
      if (opcode === OPCODE.ping) this.sink.ping(Buffer.from(buf.subarray(start, end)));
      else if (opcode === OPCODE.close) {
        this.done = true;
        const code = end - start >= 2 ? buf.readUInt16BE(start) : NO_STATUS;
        this.sink.close(code, end - start > 2 ? buf.toString('utf8', start + 2, end) : '');
      } else if (opcode !== OPCODE.pong) this.fail(`unknown control opcode ${opcode}`);
      return;
    }
    if (opcode === OPCODE.continuation) {
      if (this.fragments === null) {
        this.fail('continuation without a first fragment');
        return;
      }
      this.fragments.push(Buffer.from(buf.subarray(start, end)));
      this.fragmentBytes += end - start;
      if (this.fragmentBytes > MAX_PAYLOAD) this.fail('fragmented message too long');
      else if (fin) {
        const whole = Buffer.concat(this.fragments, this.fragmentBytes);
        this.fragments = null;
        this.fragmentBytes = 0;
        this.sink.text(whole, 0, whole.length);
      }
      return;
    }
    if (opcode !== OPCODE.text && opcode !== OPCODE.binary) {
      this.fail(`unknown opcode ${opcode}`);
      return;
    }
    if (this.fragments !== null) {
      this.fail('new message inside a fragmented one');
      return;
    }
    if (fin) this.sink.text(buf, start, end);
    else {
      this.fragments = [Buffer.from(buf.subarray(start, end))];
      this.fragmentBytes = end - start;
    }
  }
}

/** XORs `buf[start..end)` with the 4-byte key at `keyAt`, in place. */
function unmask(buf: Buffer, keyAt: number, start: number, end: number): void {
  for (let i = start; i < end; i++) buf[i] = (buf[i] as number) ^ (buf[keyAt + ((i - start) & 3)] as number);
}

/** A client frame (FIN set, masked with a fresh key, as RFC 6455 section 5.3 requires) of `opcode` carrying `payload`. */
export function clientFrame(opcode: number, payload: Buffer): Buffer {
  const size = payload.length;
  const head = size < 126 ? 2 : size < 65_536 ? 4 : 10;
  const out = Buffer.allocUnsafe(head + 4 + size);
  out[0] = 0x80 | opcode;
  if (head === 2) out[1] = 0x80 | size;
  else if (head === 4) {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(size, 2);
  } else {
    out[1] = 0x80 | 127;
    out.writeUInt32BE(Math.floor(size / 2 ** 32), 2);
    out.writeUInt32BE(size >>> 0, 6);
  }
  randomBytes(4).copy(out, head);
  for (let i = 0; i < size; i++) out[head + 4 + i] = (payload[i] as number) ^ (out[head + (i & 3)] as number);
  return out;
}

/** The masked pong answering a ping with `payload`. */
export function pongFrame(payload: Buffer): Buffer {
  return clientFrame(OPCODE.pong, payload);
}

/** A masked close frame with `code` and `reason` (cut to fit a control frame's 125 bytes). */
export function closeFrame(code: number, reason = ''): Buffer {
  const text = Buffer.from(reason, 'utf8').subarray(0, 123);
  const payload = Buffer.allocUnsafe(2 + text.length);
  payload.writeUInt16BE(code, 0);
  text.copy(payload, 2);
  return clientFrame(OPCODE.close, payload);
}
