/**
 * One logical client of the event stream (docs/gateway-api.md#events) in a load worker: a raw TCP
 * socket from its own source address, the upgrade, the frames, the seq bookkeeping and, inside an
 * operation's deadline, reconnecting by itself after a close or a failed connect with `since` (and
 * `epoch`) as a well-behaved client does (docs/gateway-api.md#resume), waiting what the server
 * hinted (`retry-after-ms=<n>` in a close reason, `Retry-After` on a 503) or a jittered 0.5-2 s.
 * A client keeps a few numbers, never the events.
 */
import { connect, type Socket } from 'node:net';
import { numberField, SEQ_KEY, TS_KEY, typeField } from './fields.ts';
import { closeFrame, FrameReader, pongFrame, type FrameSink } from './frames.ts';
import type { PortCursor } from './ports.ts';
import { SeqTrack } from './sequence.ts';
import type { Tally } from './tally.ts';
import { readUpgradeAnswer, upgradeRequest } from './upgrade.ts';

/** Where a client connects. */
export interface Target {
  host: string;
  port: number;
  /** path and query of the stream, e.g. `/api/ws` */
  path: string;
}

/** The operation (connect, reconnect) a client is part of; told when the client becomes ready or stops being so. */
export interface Operation {
  /** unix ms after which the client no longer retries */
  readonly deadline: number;
  /** ready means open and holding its resume message, not just open */
  readonly resume: boolean;
  /** clients may connect again by themselves until the deadline */
  readonly retry: boolean;
  readyChanged(delta: 1 | -1): void;
}

/** A source address and the cursor over its ports (shared by the worker's clients of that address). */
export interface LocalSource {
  address: string;
  ports: PortCursor;
}

/** How the next connect chooses `since`: never, whenever a seq is known, or always (0 when nothing is known). */
export type SinceMode = 'fresh' | 'auto' | 'resume';

type State = 'idle' | 'connecting' | 'open' | 'waiting' | 'down';

const RETRY_HINT = /retry-after-ms=(\d+)/;
// every socket of the worker reads into this one buffer: reads are handled synchronously, one at a time
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);
// a local port found taken is passed over for the next one this many times in one attempt
const PORT_TRIES = 16;
const NORMAL_CLOSE = 1000;
const ABNORMAL_CLOSE = 1006;
const PROTOCOL_ERROR = 1002;

/** A logical client: its current socket, its seqs across reconnects, its retry policy. */
export class Client implements FrameSink {
  private socket: Socket | null = null;
  private reader: FrameReader | null = null;
  private header: Buffer | null = null;
  private state: State = 'idle';
  private op: Operation | null = null;
  private isReady = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private attemptAt = 0;
  // a connect failure is counted once per attempt, from whichever of 'error', a bad answer or 'close' comes first
  private failureCounted = false;
  private closeFrameSeen = false;
  private retryHintMs: number | null = null;
  private localPort = -1;
  private portTries = 0;
  private tcpConnected = false;
  /** duplicates and gaps across reconnects */
  readonly seqs = new SeqTrack();
  /** the seq of the latest event received, -1 before any */
  lastSeq = -1;
  /** the `epoch` and `seq` of the latest resume message (undefined / -1 before any) */
  epoch: string | undefined = undefined;
  resumeSeq = -1;
  /** the `since` of the latest connect, -1 when it had none */
  sinceSent = -1;
  /** the latest connection got its resume message */
  resumedLatest = false;

  constructor(
    private target: Target,
    private readonly source: LocalSource,
    private readonly tally: Tally,
  ) {}

  /** The socket is upgraded. */
  get open(): boolean {
    return this.state === 'open';
  }

  /** The stream this client connects to from its next connect on (a gateway gone: its clients move to the others). */
  moveTo(target: Target): void {
    this.target = target;
  }

  /** Joins `op` and connects now, dropping any current socket (with a close frame) or pending retry. */
  start(op: Operation, mode: SinceMode): void {
    if (this.isReady) this.op?.readyChanged(-1);
    this.isReady = false;
    this.op = op;
    this.cancelRetry();
    if (this.state === 'connecting') this.countFailure('ABANDONED');
    this.dropSocket(NORMAL_CLOSE);
    this.attempt(mode);
  }

  /** The operation's deadline passed: a connect in progress or a retry waiting is given up. */
  giveUp(op: Operation): void {
    if (this.op !== op) return;
    if (this.state === 'connecting') {
      this.countFailure('DEADLINE');
      this.dropSocket(null);
      this.state = 'down';
    } else if (this.state === 'waiting' || this.state === 'idle') {
      this.cancelRetry();
      this.state = 'down';
    }
  }

  /** Closes everything for good (the worker stops). */
  stop(): void {
    this.cancelRetry();
    this.dropSocket(null);
    this.state = 'down';
  }

  private attempt(mode: SinceMode): void {
    const since = this.sinceFor(mode);
    this.sinceSent = since ?? -1;
    this.resumedLatest = false;
    this.state = 'connecting';
    this.failureCounted = false;
    this.closeFrameSeen = false;
    this.retryHintMs = null;
    this.header = null;
    this.attemptAt = performance.now();
    this.portTries = 0;
    this.tally.attempts++;
    const path = this.target.path;
    let query = '';
    if (since !== null) query = `since=${since}` + (this.epoch === undefined ? '' : `&epoch=${encodeURIComponent(this.epoch)}`);
    this.openSocket(query === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${query}`, since);
  }

  /** Opens the TCP connection of the current attempt from the next free local port and upgrades it to `url`. */
  private openSocket(url: string, since: number | null): void {
    const localPort = this.source.ports.take();
    if (localPort === null) {
      this.countFailure('NO_FREE_PORT');
      this.lost();
      return;
    }
    this.localPort = localPort;
    this.tcpConnected = false;
    const { host, port } = this.target;
    const sock: Socket = connect({
      host,
      port,
      localAddress: this.source.address,
      localPort,
      noDelay: true,
      // bytes straight into one buffer the worker reuses: no stream machinery nor allocation per read
      onread: {
        buffer: READ_BUFFER,
        callback: (bytes: number) => {
          if (this.socket !== sock) return true;
          if (this.reader) this.reader.push(READ_BUFFER, bytes);
          else this.handshake(READ_BUFFER.subarray(0, bytes), since);
          return true;
        },
      },
    });
    this.socket = sock;
    sock.on('connect', () => {
      if (this.socket !== sock) return;
      this.tcpConnected = true;
      sock.write(upgradeRequest(`${host}:${port}`, url));
    });
    sock.on('error', (err: NodeJS.ErrnoException) => {
      if (this.socket !== sock) return;
      const code = err.code ?? 'ERROR';
      // the port is somebody else's (a listener on it, our own TIME_WAIT to this server too young to reuse): the next one
      if (!this.tcpConnected && (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL') && this.portTries < PORT_TRIES) {
        this.portTries++;
        this.tally.portsBusy++;
        this.dropSocket(null);
        this.openSocket(url, since);
        return;
      }
      if (this.state === 'connecting') this.countFailure(code);
      else this.tally.socketError(code);
    });
    sock.on('close', () => {
      if (this.socket !== sock) return;
      if (this.state === 'connecting') this.countFailure('CLOSED_IN_HANDSHAKE');
      else if (!this.closeFrameSeen) this.tally.closed(ABNORMAL_CLOSE, 'connection ended without a close frame');
      this.lost();
    });
  }

  /** The `since` of the next connect, or null for none. */
  private sinceFor(mode: SinceMode): number | null {
    if (mode === 'fresh') return null;
    if (this.lastSeq >= 0) return this.lastSeq;
    if (this.resumeSeq >= 0) return this.resumeSeq;
    return mode === 'resume' ? 0 : null;
  }

  private handshake(chunk: Buffer, since: number | null): void {
    const bytes = this.header ? Buffer.concat([this.header, chunk]) : chunk;
    const answer = readUpgradeAnswer(bytes);
    if (!answer) {
      this.header = Buffer.from(bytes); // the read buffer is reused
      return;
    }
    this.header = null;
    if (!answer.upgraded) {
      this.countFailure(answer.status === 0 ? 'BAD_ANSWER' : `HTTP_${answer.status}`);
      this.retryHintMs = answer.retryAfterMs;
      this.dropSocket(null);
      this.lost();
      return;
    }
    this.state = 'open';
    this.tally.connected++;
    this.tally.connectTime.record(performance.now() - this.attemptAt);
    this.seqs.connected(since);
    this.reader = new FrameReader(this);
    if (!this.op?.resume) this.becomeReady();
    if (answer.bodyAt < bytes.length) this.reader.push(bytes.subarray(answer.bodyAt));
  }

  /** One event (FrameSink). */
  text(buf: Buffer, start: number, end: number): void {
    const type = typeField(buf, start, end);
    this.tally.message(type);
    if (type === 'resume') {
      this.resumeMessage(buf.toString('utf8', start, end));
      return;
    }
    const seq = numberField(buf, start, end, SEQ_KEY);
    const isPrice = type === 'price';
    if (seq >= 0) {
      this.lastSeq = seq;
      this.seqs.seen(seq, isPrice);
    }
    if (isPrice) {
      const ts = numberField(buf, start, end, TS_KEY);
      if (ts >= 0) this.tally.priceLatency(Date.now() - ts);
    }
  }

  private resumeMessage(text: string): void {
    let message: { recovered?: unknown; epoch?: unknown; seq?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      this.error('resume message is not JSON');
      return;
    }
    const recovered = message.recovered === true;
    this.tally.resumes++;
    if (recovered) this.tally.recovered++;
    else this.tally.notRecovered++;
    this.tally.resumeTime.record(performance.now() - this.attemptAt);
    if (typeof message.epoch === 'string') this.epoch = message.epoch;
    if (typeof message.seq === 'number') this.resumeSeq = message.seq;
    // not recovered: the client reloads (docs/gateway-api.md#resume); its old seqs mean nothing in this history
    if (!recovered) this.lastSeq = -1;
    this.resumedLatest = true;
    this.seqs.resumed(recovered, Math.max(this.sinceSent, 0));
    if (this.op?.resume) this.becomeReady();
  }

  /** A ping (FrameSink): answered at once. */
  ping(payload: Buffer): void {
    this.socket?.write(pongFrame(payload));
  }

  /** The server closed (FrameSink): answer, end the socket, maybe come back. */
  close(code: number, reason: string): void {
    this.closeFrameSeen = true;
    this.tally.closed(code, reason);
    const hint = RETRY_HINT.exec(reason);
    this.retryHintMs = hint ? Number(hint[1]) : null;
    // answered with 1000: echoing is optional, and some received codes (1005) must never be sent
    this.dropSocket(NORMAL_CLOSE);
    this.lost();
  }

  /** The stream broke the protocol (FrameSink). */
  error(message: string): void {
    this.tally.socketError(`PROTOCOL: ${message}`);
    this.closeFrameSeen = true;
    this.dropSocket(PROTOCOL_ERROR);
    this.lost();
  }

  private becomeReady(): void {
    if (this.isReady) return;
    this.isReady = true;
    this.op?.readyChanged(1);
  }

  private countFailure(code: string): void {
    if (this.failureCounted) return;
    this.failureCounted = true;
    this.tally.connectFailed(code);
  }

  /** Ends the current socket, first sending a close frame with `code` when it is upgraded. */
  private dropSocket(code: number | null): void {
    const sock = this.socket;
    this.releasePort();
    this.reader?.stop();
    this.reader = null;
    if (!sock) return;
    this.socket = null;
    // the frame is in the kernel's buffer before the close: destroy frees the descriptor at once,
    // which a reconnect of every socket needs under the per-process descriptor limit
    if (code !== null && this.state === 'open' && sock.writable) sock.write(closeFrame(code));
    sock.destroy();
  }

  /** The socket is gone: retry within the operation's deadline, else stay down. */
  private lost(): void {
    this.socket = null;
    this.reader = null;
    this.releasePort();
    if (this.isReady) {
      this.isReady = false;
      this.op?.readyChanged(-1);
    }
    const op = this.op;
    const wait = this.retryHintMs ?? 500 + Math.random() * 1500;
    if (!op || !op.retry || Date.now() + wait >= op.deadline) {
      this.state = 'down';
      return;
    }
    this.state = 'waiting';
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.tally.retries++;
      this.attempt(op.resume ? 'resume' : 'auto');
    }, wait);
  }

  private releasePort(): void {
    if (this.localPort >= 0) this.source.ports.release(this.localPort);
    this.localPort = -1;
  }

  private cancelRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }
}
