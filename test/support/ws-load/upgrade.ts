/**
 * The HTTP side of a WebSocket connect (RFC 6455 section 4): the upgrade request the load client
 * writes and the reading of the server's answer. One fixed key serves every socket (the server only
 * echoes its digest), so the expected `Sec-WebSocket-Accept` is computed once.
 *
 * @example
 *   sock.write(upgradeRequest('127.0.0.1:8080', '/api/ws?since=12'));
 *   const answer = readUpgradeAnswer(bytes); // null until the header is complete
 */
import { createHash } from 'node:crypto';

const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';
// the digest of the key with the protocol's GUID (RFC 6455 section 1.3)
const ACCEPT = createHash('sha1').update(`${KEY}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The upgrade request for `path` (with its query) on `host` (`name:port`). */
export function upgradeRequest(host: string, path: string): string {
  return (
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` + `Sec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`
  );
}

/** The server's answer to an upgrade. */
export interface UpgradeAnswer {
  /** the HTTP status (101 when upgraded), 0 when the status line is not HTTP */
  status: number;
  /** true when the status is 101 and the accept digest is right */
  upgraded: boolean;
  /** a `Retry-After` header in ms (503 while the gateway has too many resumes), else null */
  retryAfterMs: number | null;
  /** where the frames begin in the bytes read */
  bodyAt: number;
}

/** Reads the answer's header from `bytes`; null while it is incomplete. */
export function readUpgradeAnswer(bytes: Buffer): UpgradeAnswer | null {
  const end = bytes.indexOf(HEADER_END);
  if (end < 0) return null;
  const head = bytes.toString('latin1', 0, end);
  const line = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  const status = line ? Number(line[1]) : 0;
  const retry = /\r\nretry-after:\s*(\d+)/i.exec(head);
  return {
    status,
    upgraded: status === 101 && head.includes(ACCEPT),
    retryAfterMs: retry ? Number(retry[1]) * 1000 : null,
    bodyAt: end + HEADER_END.length,
  };
}
