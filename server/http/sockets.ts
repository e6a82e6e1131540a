/**
 * What every WebSocket the exchange serves has in common (docs/architecture.md#http-kit): a client
 * that falls 1 MiB behind is disconnected rather than buffered without end, an idle one is
 * closed after two minutes, and the server pings.
 */

/** Bytes a client may fall behind before it is disconnected. */
export const MAX_BACKPRESSURE = 1024 * 1024;

/** The uWS behaviour options of a stream whose clients send messages of at most `maxPayloadLength` bytes. */
export function streamSocketLimits(maxPayloadLength: number) {
  return {
    maxPayloadLength,
    maxBackpressure: MAX_BACKPRESSURE,
    // typed as number in this build's .d.ts; the addon reads it as a boolean
    closeOnBackpressureLimit: 1,
    idleTimeout: 120,
    sendPingsAutomatically: true,
  } as const;
}
