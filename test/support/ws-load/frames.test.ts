/**
 * The load client's framing on bytes: frames split anywhere across chunks, several in one chunk,
 * 16- and 64-bit lengths, fragments, ping answered by a masked pong, close frames, broken streams.
 */
import { describe, expect, it } from 'vitest';
import { closeFrame, FrameReader, NO_STATUS, OPCODE, pongFrame, type FrameSink } from './frames.ts';

/** A server frame (unmasked) of `opcode` with `payload`. */
function serverFrame(opcode: number, payload: Buffer | string, fin = true): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const size = body.length;
  const head = size < 126 ? Buffer.from([0, size]) : size < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = (fin ? 0x80 : 0) | opcode;
  if (size >= 126 && size < 65_536) {
    head[1] = 126;
    head.writeUInt16BE(size, 2);
  } else if (size >= 65_536) {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(size), 2);
  }
  return Buffer.concat([head, body]);
}

/** Reads a client frame back: its opcode and unmasked payload, and whether it was masked. */
function readClientFrame(frame: Buffer): { opcode: number; masked: boolean; payload: Buffer } {
  let size = frame[1]! & 0x7f;
  let at = 2;
  if (size === 126) {
    size = frame.readUInt16BE(2);
    at = 4;
  } else if (size === 127) {
    size = Number(frame.readBigUInt64BE(2));
    at = 10;
  }
  const key = frame.subarray(at, at + 4);
  const payload = Buffer.from(frame.subarray(at + 4, at + 4 + size));
  for (let i = 0; i < size; i++) payload[i]! ^= key[i & 3]!;
  return { opcode: frame[0]! & 0x0f, masked: (frame[1]! & 0x80) !== 0, payload };
}

/** A reader whose sink writes down what it got. */
function recorder() {
  const got = { texts: [] as string[], pings: [] as string[], closes: [] as Array<[number, string]>, errors: [] as string[] };
  const sink: FrameSink = {
    text: (buf, start, end) => got.texts.push(buf.toString('utf8', start, end)),
    ping: (payload) => got.pings.push(payload.toString()),
    close: (code, reason) => got.closes.push([code, reason]),
    error: (message) => got.errors.push(message),
  };
  return { reader: new FrameReader(sink), got };
}

describe('FrameReader', () => {
  it('reads several frames from one chunk', () => {
    const { reader, got } = recorder();
    reader.push(Buffer.concat([serverFrame(OPCODE.text, '{"seq":1}'), serverFrame(OPCODE.text, '{"seq":2}'), serverFrame(OPCODE.text, '')]));
    expect(got.texts).toEqual(['{"seq":1}', '{"seq":2}', '']);
  });

  it('reads frames split at every byte boundary', () => {
    const stream = Buffer.concat([serverFrame(OPCODE.text, 'a'.repeat(300)), serverFrame(OPCODE.text, 'hello'), serverFrame(OPCODE.ping, 'p')]);
    for (let cut = 1; cut < stream.length; cut++) {
      const { reader, got } = recorder();
      reader.push(stream.subarray(0, cut));
      reader.push(stream.subarray(cut));
      expect(got.texts, `cut at ${cut}`).toEqual(['a'.repeat(300), 'hello']);
      expect(got.pings).toEqual(['p']);
    }
  });

  it('reads a stream fed one byte at a time', () => {
    const stream = Buffer.concat([serverFrame(OPCODE.text, 'x'.repeat(20_000)), serverFrame(OPCODE.text, 'y')]);
    const { reader, got } = recorder();
    for (let i = 0; i < stream.length; i++) reader.push(stream.subarray(i, i + 1));
    expect(got.texts.map((t) => t.length)).toEqual([20_000, 1]);
  });

  it('reads 16-bit and 64-bit lengths', () => {
    const { reader, got } = recorder();
    const mid = 'm'.repeat(126);
    const big = 'b'.repeat(65_536);
    reader.push(Buffer.concat([serverFrame(OPCODE.text, mid), serverFrame(OPCODE.text, 'c'.repeat(65_535)), serverFrame(OPCODE.text, big)]));
    expect(got.texts.map((t) => t.length)).toEqual([126, 65_535, 65_536]);
    expect(got.texts[0]).toBe(mid);
    expect(got.texts[2]).toBe(big);
  });

  it('joins a fragmented message, with a ping between its fragments', () => {
    const { reader, got } = recorder();
    reader.push(Buffer.concat([serverFrame(OPCODE.text, 'ab', false), serverFrame(OPCODE.ping, 'x'), serverFrame(OPCODE.continuation, 'cd', false)]));
    reader.push(serverFrame(OPCODE.continuation, 'ef'));
    expect(got.texts).toEqual(['abcdef']);
    expect(got.pings).toEqual(['x']);
  });

  it('reads a close frame with its code and reason, and nothing after it', () => {
    const { reader, got } = recorder();
    const payload = Buffer.concat([Buffer.from([0x03, 0xf5]), Buffer.from('try again later; retry-after-ms=200')]);
    reader.push(Buffer.concat([serverFrame(OPCODE.text, 'before'), serverFrame(OPCODE.close, payload), serverFrame(OPCODE.text, 'after')]));
    expect(got.texts).toEqual(['before']);
    expect(got.closes).toEqual([[1013, 'try again later; retry-after-ms=200']]);
  });

  it('reads a close frame without a status as 1005', () => {
    const { reader, got } = recorder();
    reader.push(serverFrame(OPCODE.close, ''));
    expect(got.closes).toEqual([[NO_STATUS, '']]);
  });

  it('reads nothing more once stopped, not even the rest of the chunk', () => {
    const got: string[] = [];
    const reader: FrameReader = new FrameReader({
      text: (buf, start, end) => {
        got.push(buf.toString('utf8', start, end));
        reader.stop();
      },
      ping: () => undefined,
      close: () => undefined,
      error: () => undefined,
    });
    reader.push(Buffer.concat([serverFrame(OPCODE.text, 'one'), serverFrame(OPCODE.text, 'two')]));
    expect(got).toEqual(['one']);
  });

  it('reports a broken stream once and stops', () => {
    const { reader, got } = recorder();
    reader.push(Buffer.from([0x83, 0x00])); // opcode 3 is reserved
    reader.push(serverFrame(OPCODE.text, 'later'));
    expect(got.errors).toHaveLength(1);
    expect(got.texts).toEqual([]);
    const { reader: r2, got: g2 } = recorder();
    r2.push(serverFrame(OPCODE.continuation, 'orphan'));
    expect(g2.errors).toHaveLength(1);
  });
});

describe('client frames', () => {
  it('answers a ping with a masked pong carrying its payload', () => {
    const { reader, got } = recorder();
    reader.push(serverFrame(OPCODE.ping, 'are you there'));
    const pong = readClientFrame(pongFrame(Buffer.from(got.pings[0]!)));
    expect(pong).toMatchObject({ opcode: OPCODE.pong, masked: true });
    expect(pong.payload.toString()).toBe('are you there');
  });

  it('sends a masked close frame with its code and reason', () => {
    const close = readClientFrame(closeFrame(1000, 'bye'));
    expect(close).toMatchObject({ opcode: OPCODE.close, masked: true });
    expect(close.payload.readUInt16BE(0)).toBe(1000);
    expect(close.payload.subarray(2).toString()).toBe('bye');
  });

  it('masks every frame with a fresh key and survives long payloads', () => {
    const a = closeFrame(1000, 'same');
    const b = closeFrame(1000, 'same');
    expect(a.equals(b) && a.subarray(2, 6).equals(b.subarray(2, 6))).toBe(false);
    expect(closeFrame(1000, 'r'.repeat(500)).length).toBe(2 + 4 + 125); // a control frame's payload stays within 125 bytes
  });
});
