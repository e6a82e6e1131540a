/**
 * A private nats-server with its monitoring port open, restartable on the same ports, so feed
 * tests can read the server's own view of subscriptions (`/connz?subs=1`) and prove reconnects.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, stopChild, waitForPort } from '../support/servers.ts';

/** One connection as `/connz?subs=1` reports it (the fields the tests read). */
export interface ConnInfo {
  name?: string;
  subscriptions_list?: string[];
}

/** Handle on a running monitored server. */
export interface MonitoredNats {
  url: string;
  /** connections the server sees, with their subscriptions */
  connections(): Promise<ConnInfo[]>;
  /** kills the server and starts it again on the same ports */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts nats-server on free loopback ports, client and monitoring. */
export async function startMonitoredNats(): Promise<MonitoredNats> {
  const port = await freePort();
  const httpPort = await freePort();
  let child: ChildProcess;
  const launch = async () => {
    child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-m', String(httpPort)], { stdio: 'ignore' });
    await waitForPort(port, 20_000, 'nats-server');
    await waitForPort(httpPort, 20_000, 'nats-server monitoring');
  };
  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    connections: async () => {
      const res = await fetch(`http://127.0.0.1:${httpPort}/connz?subs=1`);
      const body = (await res.json()) as { connections?: ConnInfo[] };
      return body.connections ?? [];
    },
    restart: async () => {
      await stopChild(child);
      await launch();
    },
    stop: () => stopChild(child),
  };
}
