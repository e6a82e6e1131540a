/**
 * How the fleet spreads sockets: evenly over its workers, each worker over its own source
 * addresses, so that no source address carries more than `MAX_PER_ADDRESS` sockets. A loopback
 * address has about 28 000 ephemeral ports, and a socket bound to a source address before it
 * connects takes its port for that address whatever the destination: the bound leaves room for
 * ports still in TIME_WAIT and for anybody else's sockets.
 *
 * @example
 *   const sources = sourcesOfWorkers(4, ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'], [32_768, 60_999]); // one each
 *   const counts = shareOf(19_000, 4);                                                                          // [4750, 4750, 4750, 4750]
 */

/** Sockets one source address may carry. */
export const MAX_PER_ADDRESS = 25_000;

/** The loopback addresses 127.0.0.2 and up, one per worker: the default sources. */
export function defaultAddresses(workers: number): string[] {
  return Array.from({ length: workers }, (_, i) => `127.0.${Math.floor((i + 2) / 256)}.${(i + 2) % 256}`);
}

/** A source address and the slice of its local ports one worker uses. */
export interface Source {
  address: string;
  ports: [number, number];
}

/**
 * Each worker's sources: its own addresses (each with the whole port `range`) when there are at
 * least as many as workers, else addresses shared in turn, their ports split between the sharers.
 */
export function sourcesOfWorkers(workers: number, addresses: readonly string[], range: readonly [number, number]): Source[][] {
  if (addresses.length === 0) throw new Error('no source address');
  const out: Source[][] = Array.from({ length: workers }, () => []);
  if (addresses.length >= workers) {
    addresses.forEach((address, j) => out[j % workers]?.push({ address, ports: [range[0], range[1]] }));
    return out;
  }
  for (let j = 0; j < addresses.length; j++) {
    const sharers = Array.from({ length: workers }, (_, w) => w).filter((w) => w % addresses.length === j);
    const size = Math.floor((range[1] - range[0] + 1) / sharers.length);
    sharers.forEach((w, k) => out[w]?.push({ address: addresses[j] as string, ports: [range[0] + k * size, range[0] + (k + 1) * size - 1] }));
  }
  return out;
}

/** `sockets` split over `workers` as evenly as whole numbers allow. */
export function shareOf(sockets: number, workers: number): number[] {
  return Array.from({ length: workers }, (_, w) => Math.floor(sockets / workers) + (w < sockets % workers ? 1 : 0));
}

/**
 * Adds to `load` (sockets per address so far) what a worker holding `held` clients puts on its
 * `sources` when it opens `more` (it takes them in turn, `load.ts`); throws before any socket is
 * opened when an address would pass `MAX_PER_ADDRESS`.
 */
export function addLoad(load: Map<string, number>, sources: readonly Source[], held: number, more: number): void {
  const next = new Map(load);
  for (let i = held; i < held + more; i++) {
    const a = (sources[i % sources.length] as Source).address;
    next.set(a, (next.get(a) ?? 0) + 1);
  }
  for (const [a, n] of next) {
    if (n > MAX_PER_ADDRESS) throw new Error(`${n} sockets from ${a}: at most ${MAX_PER_ADDRESS} per source address; give the fleet more addresses`);
  }
  for (const [a, n] of next) load.set(a, n);
}
