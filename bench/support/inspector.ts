/**
 * Reads a benchmarked process's JS heap from outside, without code of its own: the process is
 * started with `inspectArgs(port)` and this client speaks the Chrome DevTools Protocol to its
 * inspector (docs/operations.md#benchmarks). One WebSocket per measurement, closed afterwards,
 * so the process holds no debugger session between measurements.
 */
import { createWriteStream } from 'node:fs';
import WebSocket from 'ws';

/** One CDP message as this client sends or receives it. */
interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** Node flags that open the inspector on loopback `port`. */
export const inspectArgs = (port: number): string[] => [`--inspect=127.0.0.1:${port}`];

/** A CDP session with one inspected process. */
class CdpSession {
  private next = 0;
  private readonly pending = new Map<number, { resolve(r: Record<string, unknown>): void; reject(e: Error): void }>();
  private readonly listeners = new Map<string, (params: Record<string, unknown>) => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as CdpMessage;
      if (m.id !== undefined) {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.error) p?.reject(new Error(`CDP ${m.error.code}: ${m.error.message}`));
        else p?.resolve(m.result ?? {});
      } else if (m.method) this.listeners.get(m.method)?.(m.params ?? {});
    });
    ws.on('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('inspector socket closed'));
      this.pending.clear();
    });
  }

  /** Connects to the first target the inspector on `port` lists. */
  static async open(port: number): Promise<CdpSession> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl?: string }[];
    const url = targets[0]?.webSocketDebuggerUrl;
    if (!url) throw new Error(`no inspector target on port ${port}`);
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new CdpSession(ws);
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const message: CdpMessage = { id, method, params };
      this.ws.send(JSON.stringify(message));
    });
  }

  on(method: string, listener: (params: Record<string, unknown>) => void): void {
    this.listeners.set(method, listener);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}

/** Runs `fn` on a fresh session with the process inspected on `port`, then closes it. */
async function withSession<T>(port: number, fn: (s: CdpSession) => Promise<T>): Promise<T> {
  const session = await CdpSession.open(port);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}

/** A process's JS heap after two full collections, in bytes. */
export interface HeapReading {
  /** `process.memoryUsage().heapUsed` */
  used: number;
  /** of which compiled code and bytecode with their metadata (v8.getHeapCodeStatistics): grows while the JIT warms up, whatever the process holds */
  code: number;
}

/** What the inspected process evaluates (v8 reached through process.getBuiltinModule: `require` may not exist in its context). */
const READING = `(() => {
  const { code_and_metadata_size: code, bytecode_and_metadata_size: bytecode } = process.getBuiltinModule('v8').getHeapCodeStatistics();
  return { used: process.memoryUsage().heapUsed, code: code + bytecode };
})()`;

/** The process's heap after two full collections (the second frees what the first's finalizers let go). */
export function heapAfterGc(port: number): Promise<HeapReading> {
  return withSession(port, async (s) => {
    await s.send('HeapProfiler.collectGarbage');
    await s.send('HeapProfiler.collectGarbage');
    const r = await s.send('Runtime.evaluate', { expression: READING, returnByValue: true });
    const value = (r.result as { value?: unknown } | undefined)?.value;
    const reading = (typeof value === 'object' && value !== null ? value : {}) as Partial<HeapReading>;
    if (typeof reading.used !== 'number' || typeof reading.code !== 'number') throw new Error(`heap not read: ${JSON.stringify(r)}`);
    return { used: reading.used, code: reading.code };
  });
}

/** Writes a heap snapshot of the process to `file` (a .heapsnapshot that Chrome DevTools opens). */
export function writeHeapSnapshot(port: number, file: string): Promise<void> {
  return withSession(port, async (s) => {
    const out = createWriteStream(file);
    s.on('HeapProfiler.addHeapSnapshotChunk', (p) => out.write(String(p.chunk)));
    await s.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    await new Promise<void>((resolve, reject) => {
      out.once('error', reject);
      out.end(() => resolve());
    });
  });
}
