// A price provider on 127.0.0.1 for the tests: answers with whatever the test sets, records every
// request, and can hang (accept the request and never answer) to exercise timeouts.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import type { PriceQuote } from "../../../src/core/ports.ts";
import { PriceFeedError } from "../../../src/rails/prices/errors.ts";

export type Reply = { status?: number; body: string | object; headers?: Record<string, string> } | "hang" | "hang-body";

export interface RecordedRequest {
  path: string;
  url: URL;
  headers: IncomingMessage["headers"];
}

export interface FakeUpstream {
  url: string;
  requests: RecordedRequest[];
  /** What every following request gets; a function decides per request. "hang": no answer at all;
   *  "hang-body": the headers and part of the body, then nothing. */
  reply(reply: Reply | ((request: RecordedRequest) => Reply)): void;
  /** Holds every answer until `release()` (to line up concurrent requests). */
  hold(): { release(): void };
  close(): Promise<void>;
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  let current: Reply | ((request: RecordedRequest) => Reply) = { status: 500, body: "no reply set" };
  let gate: Promise<void> | null = null;
  const requests: RecordedRequest[] = [];

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const request = { path: url.pathname, url, headers: req.headers };
    requests.push(request);
    if (gate) await gate;
    const reply = typeof current === "function" ? current(request) : current;
    if (reply === "hang") return; // never answers; closeAllConnections() ends it
    if (reply === "hang-body") {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"bitcoin":{"usd":65000'); // headers and half a body, then nothing
      return;
    }
    const body = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
    res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply(reply) {
      current = reply;
    },
    hold() {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return {
        release() {
          gate = null;
          release();
        },
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A clock the tests move by hand (milliseconds since the epoch). */
export function manualClock(start = Date.UTC(2026, 0, 1)) {
  const clock = {
    ms: start,
    now: () => clock.ms,
    advance(seconds: number) {
      clock.ms += seconds * 1000;
    },
  };
  return clock;
}

/** CoinGecko's simple/price answer for the six coins; prices given as raw JSON number text. */
export function coingeckoBody(prices: Record<string, Record<string, string>> = DEFAULT_COINGECKO): string {
  const coins = Object.entries(prices).map(
    ([id, vs]) =>
      `${JSON.stringify(id)}:{${Object.entries(vs)
        .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
        .join(",")}}`,
  );
  return `{${coins.join(",")}}`;
}

export const DEFAULT_COINGECKO: Record<string, Record<string, string>> = {
  tether: { usd: "1.0002", ngn: "1530.12" },
  bitcoin: { usd: "65000.12345678", ngn: "99450188.888888888" },
  binancecoin: { usd: "600.5", ngn: "918765" },
  ethereum: { usd: "3000.01", ngn: "4590015.3" },
  litecoin: { usd: "80.25", ngn: "122782.5" },
  "usd-coin": { usd: "0.9999", ngn: "1529.85" },
};

/** Kraken's Ticker answer: one ticker per pair with the real fields, last trade price `c[0]`. */
export function krakenBody(last: Record<string, string> = DEFAULT_KRAKEN, error: string[] = []): object {
  const result: Record<string, object> = {};
  for (const [pair, price] of Object.entries(last)) {
    result[pair] = {
      a: [price, "1", "1.000"],
      b: [price, "2", "2.000"],
      c: [price, "0.00100000"],
      v: ["1000.00000000", "2000.00000000"],
      p: [price, price],
      t: [1000, 2000],
      l: [price, price],
      h: [price, price],
      o: price,
    };
  }
  return { error, result };
}

export const DEFAULT_KRAKEN: Record<string, string> = {
  XXBTZUSD: "65000.12345678",
  XETHZUSD: "3000.01000",
  XLTCZUSD: "80.25000",
  USDTZUSD: "1.00020000",
  USDCUSD: "0.99990000",
};

/** Coinbase's exchange-rates answer for one coin: `{ data: { currency, rates: { USD: "…", NGN: "…", … } } }`. */
export function coinbaseBody(coin: string, rates: Record<string, string>): object {
  // Coinbase lists every currency it knows; a few others stand in for the rest.
  return { data: { currency: coin, rates: { AED: "238767.45", EUR: "60123.5", ...rates } } };
}

export const DEFAULT_COINBASE: Record<string, Record<string, string>> = {
  USDT: { USD: "1.0001", NGN: "1531.5" },
  BTC: { USD: "65010.5", NGN: "99460000.25" },
  BNB: { USD: "600.4", NGN: "918700" },
  ETH: { USD: "3000.5", NGN: "4590500" },
  LTC: { USD: "80.2", NGN: "122790" },
  USDC: { USD: "1.0001", NGN: "1530.4" },
};

/** Answers each `?currency=` as Coinbase does: the coin's rates, or its 400 error for a currency it does not know. */
export function coinbaseReply(table: Record<string, Record<string, string>> = DEFAULT_COINBASE) {
  return (request: RecordedRequest): Reply => {
    const coin = request.url.searchParams.get("currency") ?? "USD";
    const rates = table[coin];
    if (!rates) return { status: 400, body: { errors: [{ id: "invalid_request", message: "Invalid currency" }] } };
    return { body: coinbaseBody(coin, rates) };
  };
}

/** Binance's ticker/price answer: `[{ symbol, price }]` for the symbols asked, in Binance's 8-decimal strings. */
export function binanceReply(prices: Record<string, string> = DEFAULT_BINANCE) {
  return (request: RecordedRequest): Reply => {
    const asked = JSON.parse(request.url.searchParams.get("symbols") ?? "[]") as string[];
    const unknown = asked.find((symbol) => prices[symbol] === undefined);
    if (unknown) return { status: 400, body: { code: -1121, msg: "Invalid symbol." } };
    return { body: asked.map((symbol) => ({ symbol, price: prices[symbol] })) };
  };
}

export const DEFAULT_BINANCE: Record<string, string> = {
  BTCUSDT: "64990.01000000",
  ETHUSDT: "2999.50000000",
  BNBUSDT: "600.10000000",
  LTCUSDT: "80.15000000",
  USDTNGN: "1530.00000000",
};

/** A fake provider for one test file: started before its tests and closed after; before each, its requests are cleared and its reply reset. */
export function fakeProvider(defaultReply: () => Reply | ((request: RecordedRequest) => Reply)): FakeUpstream {
  let upstream: FakeUpstream | undefined;
  const current = () => {
    if (!upstream) throw new Error("the fake provider is not started yet");
    return upstream;
  };
  beforeAll(async () => {
    upstream = await startFakeUpstream();
  });
  afterAll(() => upstream?.close());
  beforeEach(() => {
    current().requests.length = 0;
    current().reply(defaultReply());
  });
  return {
    get url() {
      return current().url;
    },
    get requests() {
      return current().requests;
    },
    reply: (reply) => current().reply(reply),
    hold: () => current().hold(),
    close: () => current().close(),
  };
}

/** One test per case: with the provider answering `reply`, the quote fails with a PriceFeedError matching `message`, for `reason`. */
export function itRefuses(
  upstream: FakeUpstream,
  quote: () => Promise<PriceQuote>,
  cases: [name: string, reply: Parameters<FakeUpstream["reply"]>[0], message: RegExp, reason: string][],
): void {
  for (const [name, reply, message, reason] of cases) {
    it(`refuses ${name} (${reason})`, async () => {
      upstream.reply(reply);
      const error = await quote().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PriceFeedError);
      expect((error as Error).message).toMatch(message);
      expect((error as PriceFeedError).reason).toBe(reason);
    });
  }
}
