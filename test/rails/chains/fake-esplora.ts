// An Esplora server (electrs's HTTP API) on 127.0.0.1 for the tests. The test sets the tip and the
// transactions (and the network: `genesis`); the server answers the endpoints the client uses the way electrs does:
// mempool txs first (newest first, up to 50), then confirmed txs newest first, 25 per page, older
// pages by `/txs/chain/{last seen txid}`. A tx pays outputs only (inputs are not modelled).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { GENESIS } from "../../../src/rails/chains/esplora.ts";
import { actOut, jsonWithBigInts, type Failure } from "./fake-http.ts";

export interface FakeOutput {
  /** null: an output with no address (OP_RETURN). */
  address: string | null;
  /** Satoshis; a string is written into the JSON as it is (to send 1.5 or 1e3). */
  value: bigint | number | string;
}

export interface FakeTx {
  txid: string;
  outputs: FakeOutput[];
  /** null while in the mempool. */
  height: number | null;
  /** Unix seconds of the block; default genesisTime + height * 600. undefined in the answer when null. */
  blockTime?: number | null;
  /** nSequence of its one input; default 0xfffffffd (signals BIP 125, as Bitcoin Core's wallet does by default since 24). */
  sequence?: number;
}

export interface FakeEsplora {
  url: string;
  tip: number;
  /** In the order they were sent; the server sorts. */
  txs: FakeTx[];
  /** Paths asked, in order. */
  requests: string[];
  pageSize: number;
  mempoolLimit: number;
  genesisTime: number;
  /** The hash `/block-height/0` answers: the network the server is on. Default Bitcoin testnet4's (test mode's default). */
  genesis: string;
  /** Applied to every request, or decided per path. */
  failure: Failure | ((path: string) => Failure);
  close(): Promise<void>;
}

export async function startFakeEsplora(): Promise<FakeEsplora> {
  const state: Omit<FakeEsplora, "url" | "close"> = {
    tip: 100,
    txs: [],
    requests: [],
    pageSize: 25,
    mempoolLimit: 50,
    genesisTime: 1_700_000_000,
    genesis: GENESIS.bitcoinTestnet4,
    failure: null,
  };

  const txJson = (tx: FakeTx) => {
    const blockTime = tx.blockTime === undefined && tx.height !== null ? state.genesisTime + tx.height * 600 : tx.blockTime;
    const status =
      tx.height === null
        ? { confirmed: false }
        : {
            confirmed: true,
            block_height: tx.height,
            block_hash: tx.height.toString(16).padStart(64, "0"),
            ...(blockTime === null || blockTime === undefined ? {} : { block_time: blockTime }),
          };
    return {
      txid: tx.txid,
      version: 2,
      locktime: 0,
      vin: [{ txid: "ab".repeat(32), vout: 0, is_coinbase: false, sequence: tx.sequence ?? 4294967293 }],
      vout: tx.outputs.map((o) => ({
        scriptpubkey: `0014${"00".repeat(20)}`,
        scriptpubkey_asm: `OP_0 OP_PUSHBYTES_20 ${"00".repeat(20)}`,
        scriptpubkey_type: o.address === null ? "op_return" : "v0_p2wpkh",
        ...(o.address === null ? {} : { scriptpubkey_address: o.address }),
        value: typeof o.value === "string" ? `__RAW_NUMBER_TEXT:${o.value}__` : typeof o.value === "number" ? BigInt(o.value) : o.value,
      })),
      size: 222,
      weight: 561,
      fee: 141n,
      status,
    };
  };

  const history = (address: string) => {
    const mine = state.txs.map((tx, order) => ({ tx, order })).filter(({ tx }) => tx.outputs.some((o) => o.address === address));
    const mempool = mine
      .filter(({ tx }) => tx.height === null)
      .sort((a, b) => b.order - a.order)
      .map(({ tx }) => tx);
    const chain = mine
      .filter(({ tx }) => tx.height !== null)
      .sort((a, b) => (b.tx.height ?? 0) - (a.tx.height ?? 0) || b.order - a.order)
      .map(({ tx }) => tx);
    return { mempool, chain };
  };

  const send = (res: ServerResponse, status: number, body: string, type = "application/json") => {
    res.writeHead(status, { "content-type": type });
    res.end(body);
  };
  const sendTxs = (res: ServerResponse, txs: FakeTx[]) =>
    send(res, 200, jsonWithBigInts(txs.map(txJson)).replace(/"__RAW_NUMBER_TEXT:([^"]*)__"/g, "$1"));

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    state.requests.push(path);
    const failure = typeof state.failure === "function" ? state.failure(path) : state.failure;
    if (actOut(failure, res)) return;
    if (req.method !== "GET") return send(res, 405, "GET only", "text/plain");
    if (path === "/blocks/tip/height") return send(res, 200, String(state.tip), "text/plain");
    if (path === "/block-height/0") return send(res, 200, state.genesis, "text/plain");
    if (/^\/block-height\/\d+$/.test(path)) return send(res, 404, "Block not found", "text/plain");
    const m = /^\/address\/([^/]+)\/txs(?:\/chain(?:\/([0-9a-f]{64}))?)?$/.exec(path);
    if (m === null) return send(res, 404, "Not Found", "text/plain");
    const address = decodeURIComponent(m[1] ?? "");
    const { mempool, chain } = history(address);
    if (!path.includes("/chain")) return sendTxs(res, [...mempool.slice(0, state.mempoolLimit), ...chain.slice(0, state.pageSize)]);
    const after = m[2];
    if (after === undefined) return sendTxs(res, chain.slice(0, state.pageSize));
    const at = chain.findIndex((tx) => tx.txid === after);
    return sendTxs(res, at < 0 ? [] : chain.slice(at + 1, at + 1 + state.pageSize));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const fake = state as FakeEsplora;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}

/** A txid made from a small number, for readable tests. */
export function txid(n: number): string {
  return n.toString(16).padStart(64, "0");
}
