/** The part of autocannon's API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  interface Histogram {
    p50: number;
    p90: number;
    p99: number;
    average: number;
  }
  interface Result {
    '2xx': number;
    non2xx: number;
    errors: number;
    latency: Histogram;
    requests: Histogram;
  }
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** called before each send of this request; returns the request to send */
    setupRequest?: (req: Request) => Request;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    requests?: Request[];
  }
  export default function autocannon(options: Options): Promise<Result>;
}
