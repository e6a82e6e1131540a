// The gateway's event stream with resume: a dropped socket reconnects with `?since=<last seq>&epoch=<epoch>`,
// so nothing published meanwhile is missed (docs/gateway-api.md#resume; the server replays from its log).
// Reconnects are jittered, and a close with 1013 waits the hint it carries (`retry-after-ms=<n>`), so a
// page among thousands does not come back in the same instant as the others after a restart.

/**
 * Opens `/api/ws` and keeps it open.
 * @param {{ onEvent: (e: any) => void, onStatus: (s: { state: string, text: string }) => void }} handlers
 */
export function eventStream({ onEvent, onStatus }) {
  let lastSeq = 0;
  let epoch;
  let socket = null;
  let attempt = 0;
  let stopped = false;
  let resumedFrom = null;

  const url = () => {
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const resume = lastSeq > 0 ? `?since=${lastSeq}${epoch === undefined ? '' : `&epoch=${encodeURIComponent(epoch)}`}` : '';
    return `${proto}://${location.host}/api/ws${resume}`;
  };

  const connect = () => {
    const since = lastSeq;
    const ws = new WebSocket(url());
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      if (since > 0) {
        resumedFrom = since;
        onStatus({ state: 'live', text: `resumed from seq ${since}` });
      } else onStatus({ state: 'live', text: 'live' });
    };
    ws.onmessage = (msg) => {
      let e;
      try {
        e = JSON.parse(msg.data);
      } catch {
        return;
      }
      if (e.type === 'resume') {
        // a stream that says how the resume went: another epoch means the numbering started over
        if (epoch !== undefined && e.epoch !== undefined && e.epoch !== epoch) lastSeq = 0;
        epoch = e.epoch ?? epoch;
        const from = resumedFrom ?? since;
        const how = e.recovered === false ? ' (events were lost: history reloaded)' : '';
        if (from > 0) onStatus({ state: 'live', text: `resumed from seq ${from}${how}` });
        onEvent(e);
        return;
      }
      if (typeof e.seq === 'number') {
        // the price snapshot sent on a reconnect may repeat the last event seen: each seq is shown once
        if (e.seq <= lastSeq) return;
        if (e.seq > lastSeq) lastSeq = e.seq;
      }
      onEvent(e);
    };
    ws.onclose = (closed) => {
      if (socket !== ws || stopped) return;
      socket = null;
      const hinted = closed.code === 1013 ? Number(/retry-after-ms=(\d+)/.exec(closed.reason)?.[1]) : NaN;
      const delay = Number.isFinite(hinted) ? hinted : Math.min(5_000, 300 * 2 ** attempt++) * (0.5 + Math.random());
      onStatus({ state: 'down', text: `disconnected at seq ${lastSeq}; reconnecting in ${(delay / 1000).toFixed(1)} s` });
      setTimeout(connect, delay);
    };
  };
  connect();

  return {
    get lastSeq() {
      return lastSeq;
    },
    /** closes the current socket as a network drop would (it reconnects with since) */
    drop() {
      socket?.close(4000, 'dropped by the page');
    },
    stop() {
      stopped = true;
      socket?.close();
    },
  };
}
