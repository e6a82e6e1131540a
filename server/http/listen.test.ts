/**
 * Listening for a herd (docs/operations.md#a-reconnect-herd): a backlog past uWS's 512 is made of
 * several listening sockets on one port, each with its own queue, and the port stays one process's
 * alone — a second listener, exclusive or not, is refused with PortInUse, and so is a port another
 * server already holds. Real sockets, read back from the kernel's table.
 */
import { readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import uws from 'uWebSockets.js';
import { describe, expect, it } from 'vitest';
import { PortInUse } from '../../kernel/errors.ts';
import { listenExclusive, listenWithBacklog, UWS_BACKLOG } from './listen.ts';

/** The listening sockets of `port` in the kernel's table (their inodes). */
function kernelListeners(port: number): string[] {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const out: string[] = [];
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[1]?.endsWith(hex) && f[3] === '0A') out.push(f[9] as string);
  }
  return out;
}

const app = () => {
  const a = uws.App();
  a.get('/x', (res) => void res.end('ok'));
  return a;
};

const get = (port: number) =>
  new Promise<string>((resolve, reject) => {
    const s = createConnection({ host: '127.0.0.1', port }, () => s.write('GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    let text = '';
    s.on('data', (d) => (text += d.toString()));
    s.on('end', () => resolve(text));
    s.on('error', reject);
  });

describe('listening with a backlog for a herd', () => {
  it('holds 4096 as eight listening sockets of 512 on one port, all answering', async () => {
    const sockets = await listenWithBacklog(app(), '127.0.0.1', 0, 4096);
    try {
      const port = uws.us_socket_local_port(sockets[0] as uws.us_listen_socket);
      expect(sockets).toHaveLength(8);
      // each with uWS's own queue of UWS_BACKLOG: 8 x 512
      expect(kernelListeners(port)).toHaveLength(4096 / UWS_BACKLOG);
      const answers = await Promise.all(Array.from({ length: 64 }, () => get(port)));
      expect(answers.every((a) => a.startsWith('HTTP/1.1 200') && a.endsWith('ok'))).toBe(true);
    } finally {
      for (const s of sockets) uws.us_listen_socket_close(s);
    }
  });

  it('refuses a port another listener holds, whether it shares ports or not, and leaves nothing behind', async () => {
    const first = await listenWithBacklog(app(), '127.0.0.1', 0, 2048);
    const port = uws.us_socket_local_port(first[0] as uws.us_listen_socket);
    try {
      await expect(listenWithBacklog(app(), '127.0.0.1', port, 2048)).rejects.toBeInstanceOf(PortInUse);
      await expect(listenExclusive(app(), '127.0.0.1', port)).rejects.toBeInstanceOf(PortInUse);
      expect(kernelListeners(port)).toHaveLength(4);
    } finally {
      for (const s of first) uws.us_listen_socket_close(s);
    }
    const node = createServer();
    await new Promise<void>((r) => node.listen(port, '127.0.0.1', () => r()));
    try {
      await expect(listenWithBacklog(app(), '127.0.0.1', port, 2048)).rejects.toBeInstanceOf(PortInUse);
      expect(kernelListeners(port)).toHaveLength(1);
    } finally {
      await new Promise((r) => node.close(r));
    }
  });

  it('is one exclusive socket for a backlog uWS gives anyway', async () => {
    const sockets = await listenWithBacklog(app(), '127.0.0.1', 0, 512);
    const port = uws.us_socket_local_port(sockets[0] as uws.us_listen_socket);
    try {
      expect(sockets).toHaveLength(1);
      await expect(listenWithBacklog(app(), '127.0.0.1', port, 4096)).rejects.toBeInstanceOf(PortInUse);
    } finally {
      for (const s of sockets) uws.us_listen_socket_close(s);
    }
  });
});
