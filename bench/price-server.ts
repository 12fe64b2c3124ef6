// A local server that answers as CoinGecko's simple/price does, so the bench's live mode quotes through
// the service's real CoinGecko client (and its cache) without the internet.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { CryptoSlug, FiatSlug } from "../src/core/money/currencies.ts";
import { DEFAULT_TEST_RATES } from "../src/core/test-rates.ts";
import { COINGECKO_IDS, VS_CURRENCIES } from "../src/rails/prices/coingecko.ts";

/** simple/price's body for every coin and fiat currency the service asks for, at the test rates. */
function simplePriceBody(): string {
  const coins = (Object.entries(COINGECKO_IDS) as [CryptoSlug, string][]).map(([slug, id]) => {
    const prices = (Object.entries(VS_CURRENCIES) as [FiatSlug, string][]).map(([fiat, vs]) => {
      const rate = DEFAULT_TEST_RATES[slug]?.[fiat];
      if (rate === undefined) throw new Error(`no test rate for ${slug}/${fiat}`);
      return `"${vs}":${rate}`;
    });
    return `"${id}":{${prices.join(",")}}`;
  });
  return `{${coins.join(",")}}`;
}

export interface PriceServer {
  url: string;
  /** How many price requests it answered. */
  requests(): number;
  close(): Promise<void>;
}

export async function startPriceServer(): Promise<PriceServer> {
  const body = simplePriceBody();
  let answered = 0;
  const server = createServer((req, res) => {
    if (req.method === "GET" && req.url?.startsWith("/api/v3/simple/price?")) {
      answered++;
      res.writeHead(200, { "content-type": "application/json" }).end(body);
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => answered,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
