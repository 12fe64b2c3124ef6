// A TRON FullNode's HTTP API (java-tron's `/wallet/…`, port 8090; TronGrid serves it beside its
// /jsonrpc), for what TRON's Ethereum-compatible JSON-RPC does not tell: the TRX a transaction
// actually burned (`gettransactioninfobyid`'s `fee`: energy and bandwidth not covered by staking, an
// activation), which recording a TRON sweep needs (src/rails/settlement/tron-sweep-transactions.ts).
// Requests ask `visible: true`, so addresses come back in base58. The API answers 200 with
// `{"Error": …}` for a refused request and `{}` for an unknown id.
import { hostOf, quote } from "../http/outbound.ts";
import { ChainNodeError } from "./errors.ts";
import { requestText } from "./http.ts";
import { TRONGRID_KEY_HEADER } from "./tron-rpc.ts";

export interface TronHttpOptions {
  /** The API's base, e.g. http://127.0.0.1:8090 or https://nile.trongrid.io. */
  url: string;
  timeoutMs: number;
  apiKey?: string | undefined;
  /** Names the node in messages, e.g. "TRON Nile testnet HTTP API (nile.trongrid.io)". */
  name?: string;
}

export class TronHttpClient {
  readonly name: string;
  /** The API's base. */
  readonly url: string;
  private readonly base: string;

  constructor(private readonly options: TronHttpOptions) {
    this.url = options.url;
    this.base = options.url.replace(/\/+$/, "");
    this.name = options.name ?? `TRON HTTP API (${hostOf(options.url)})`;
  }

  /** POSTs to /wallet/<path>; an `Error` answer or one that is no JSON object is a ChainNodeError naming the node. */
  async post(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const text = await requestText(new URL(`${this.base}/wallet/${path}`), {
      node: this.name,
      timeoutMs: this.options.timeoutMs,
      json: JSON.stringify({ ...body, visible: true }),
      ...(this.options.apiKey === undefined ? {} : { headers: { [TRONGRID_KEY_HEADER]: this.options.apiKey } }),
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ChainNodeError(`${this.name}: /wallet/${path} answered ${quote(text.slice(0, 200))}, not JSON`, { reason: "malformed" });
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new ChainNodeError(`${this.name}: /wallet/${path} answered ${quote(text.slice(0, 200))}, not a JSON object`, { reason: "malformed" });
    const answer = parsed as Record<string, unknown>;
    if (typeof answer.Error === "string")
      throw new ChainNodeError(`${this.name}: /wallet/${path} refused: ${quote(answer.Error)}`, { reason: "malformed" });
    return answer;
  }
}
