// The part of autocannon's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    total: number;
    p50: number;
    p99: number;
    max: number;
  }
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?(request: Request, context: Record<string, unknown>): Request;
    onResponse?(status: number, body: string, context: Record<string, unknown>): void;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Requests to complete before the run ends; overrides duration. */
    amount?: number;
    overallRate?: number;
    timeout?: number;
    requests?: Request[];
  }
  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
