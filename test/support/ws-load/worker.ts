/**
 * A load worker process, forked by `fleet.ts` with `node --import tsx`: it holds its share of the
 * sockets and obeys the coordinator's commands (`protocol.ts`) over the IPC channel, answering each
 * by its id. It exits when told to stop and, so no orphan keeps thousands of sockets open, as soon
 * as the coordinator's channel goes away.
 */
import { Load } from './load.ts';
import type { Answer, Command, Hello, Request } from './protocol.ts';

const send = process.send?.bind(process);
if (!send) {
  console.error('ws-load worker: run me through fleet.ts (I need an IPC channel)');
  process.exit(2);
}

const load = new Load();

/** Runs one command; its result is what the coordinator gets. */
async function run(cmd: Command): Promise<unknown> {
  switch (cmd.kind) {
    case 'connect':
      return load.connect(cmd);
    case 'reconnect':
      return load.reconnect(cmd);
    case 'stats':
      return load.stats();
    case 'resetWindow':
      load.resetWindow();
      return null;
    case 'stop':
      load.stop();
      // answered first, then gone: the coordinator waits for the exit
      setImmediate(() => process.exit(0));
      return null;
  }
}

process.on('message', (message: Request) => {
  run(message).then(
    (result) => answer({ id: message.id, ok: true, result }),
    (err: unknown) => answer({ id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
  );
});

// the coordinator died or let go: sockets go with this process
process.on('disconnect', () => {
  load.stop();
  process.exit(0);
});

function answer(a: Answer): void {
  if (process.connected) send?.(a);
}

send({ hello: true, pid: process.pid } satisfies Hello);
