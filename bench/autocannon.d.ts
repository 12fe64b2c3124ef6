// The part of autocannon 9's API that bench/ uses. autocannon ships no types; @types/autocannon
// exists on npm (7.x) but is not installed. If it is installed later, delete this file.
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  namespace autocannon {
    type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";

    interface Request {
      method?: Method;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Called before each request is built; return the request to send. */
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
      /** Called with every response's status and whole body. */
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) => void;
    }

    interface Options {
      url: string;
      connections?: number;
      /** Seconds; ignored when `amount` is given. */
      duration?: number;
      /** Stop after this many requests in all. */
      amount?: number;
      /** Seconds before a request counts as timed out. */
      timeout?: number;
      pipelining?: number;
      requests?: Request[];
    }

    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      p50: number;
      p90: number;
      p99: number;
    }

    interface Result {
      /** Milliseconds. */
      latency: Histogram;
      /** Requests per one-second sample; `total` is every completed request. */
      requests: Histogram & { total: number; sent: number };
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      "2xx": number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      /** Ends the run; the result follows within one sample interval. */
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
