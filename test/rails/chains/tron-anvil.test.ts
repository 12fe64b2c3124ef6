// TRC-20 watching over TRON's Ethereum-compatible JSON-RPC, against anvil: TRON's FullNode serves
// the same protocol on /jsonrpc (eth_chainId, eth_blockNumber, eth_getBlockByNumber, eth_getLogs),
// with 20-byte hex addresses, and its TVM logs Transfer events as the EVM does. anvil runs with TRON
// Nile's chain id (eth_chainId 0xcd8690dc, the last 4 bytes of Nile's genesis block id, as
// https://developers.tron.network/reference-link/eth_chainid documents), the 6-decimal test token
// sits at the hex form of Nile's USDT contract, and a real transfer goes to the hex form of an
// address derived from a TRON account key: the receipt names the payment of the T-address.
// No database: this file runs once per CI run (vitest.config.ts).
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ObservedReceipt } from "../../../src/core/ports.ts";
import { USDT_TRON_NILE_CONTRACT } from "../../../src/core/networks.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../../src/core/money/currencies.ts";
import { ChainNodeError, ChainNotConfiguredError } from "../../../src/rails/chains/errors.ts";
import { ChainEnvSchema, chainConfig, ChainWatchers } from "../../../src/rails/chains/index.ts";
import { TRON_CHAIN_IDS, TronRpcClient, tronChain } from "../../../src/rails/chains/tron-rpc.ts";
import { createTronTestWallet, deriveTronAddress, tronAddressToHex, tronReceiveChain } from "../../../src/rails/wallets/tron.ts";
import { RefundRails } from "../../../src/rails/refunds/index.ts";
import { HdWalletRails } from "../../../src/rails/wallets/index.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../../support/anvil.ts";
import { useRecordingServers } from "../../support/recording-server.ts";

const compiled = JSON.parse(readFileSync(new URL("token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};
const USDT = { contract: USDT_TRON_NILE_CONTRACT, decimals: 6 };
const TOKEN_HEX = tronAddressToHex(USDT_TRON_NILE_CONTRACT);
const TEST_VARIABLE = "PAYGATE_TRON_TEST_RPC_URL";

let anvil: Anvil;
beforeAll(async () => {
  anvil = await startAnvil({ chainId: TRON_CHAIN_IDS.nile });
  await anvil.setCode(TOKEN_HEX, compiled.contracts.TestToken6.deployedBytecode);
  await anvil.sendTransaction({ to: TOKEN_HEX, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
});
afterAll(() => anvil.stop());

const serve = useRecordingServers();

/** ABI encoding of a call with address and uint256 arguments. */
function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

/** A merchant's fresh TRON test wallet, and its receive addresses. */
function merchant() {
  const chain = tronReceiveChain(false, createTronTestWallet());
  return (index: number) => deriveTronAddress(chain, index);
}

/** A USDT transfer from the dev account to a T-address (sent to its hex form); the transaction hash. */
const pay = (address: string, units: bigint) =>
  anvil.sendTransaction({ to: TOKEN_HEX, data: abiCall("transfer(address,uint256)", tronAddressToHex(address), units) });

function client(url = anvil.url, isLive = false) {
  return new TronRpcClient({ url, timeoutMs: 5000, headMaxAgeMs: 0, chain: tronChain(isLive, isLive ? "PAYGATE_TRON_RPC_URL" : TEST_VARIABLE) });
}

const view = (receipts: ObservedReceipt[]) =>
  receipts.map((r) => ({ key: r.key, txHash: r.txHash, amount: r.amount.toFixed(), confirmations: r.confirmations, blockHeight: r.blockHeight }));

describe("TRC-20 USDT over TRON's JSON-RPC (on anvil with Nile's chain id)", () => {
  it("finds a transfer to a derived T-address, keyed by the TRON transaction id, exact to the unit, confirmations growing", async () => {
    const address = merchant()(0);
    const tron = client();
    const since = new Date();
    expect(await tron.tokenReceipts(USDT, address, { since })).toEqual([]);

    const tx = await pay(address, 12_500_001n);
    const block = await anvil.blockOf(tx);
    const txid = tx.slice(2); // TRON writes transaction ids without 0x
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    const seen = { key: `${txid}:0`, txHash: txid, amount: "12.500001", blockHeight: block };
    expect(view(await tron.tokenReceipts(USDT, address, { since }))).toEqual([{ ...seen, confirmations: 1 }]);
    await anvil.mine(18);
    expect(view(await tron.tokenReceipts(USDT, address, { since }))).toEqual([{ ...seen, confirmations: 19 }]);
  });

  it("keeps each address's transfers apart, one receipt per transfer", async () => {
    const address = merchant();
    const [mine, other] = [address(0), address(1)];
    const tron = client();
    const since = new Date();
    const first = await pay(mine, 1_000_000n);
    await pay(other, 5_000_000n);
    const second = await pay(mine, 1n); // one base unit: 0.000001 USDT
    const receipts = view(await tron.tokenReceipts(USDT, mine, { since }));
    expect(receipts.map((r) => [r.txHash, r.amount, r.confirmations])).toEqual([
      [first.slice(2), "1", 3],
      [second.slice(2), "0.000001", 1],
    ]);
    expect(view(await tron.tokenReceipts(USDT, other, { since })).map((r) => r.amount)).toEqual(["5"]);
  });

  it("gives each transfer its block's time when asked (minedAt), and only then", async () => {
    const address = merchant()(0);
    const tron = client();
    const since = new Date();
    // A block a few minutes ahead: its time, not the time of the read, is what is told.
    const at = Math.floor(Date.now() / 1000) + 300;
    await anvil.send("evm_setNextBlockTimestamp", [at]);
    const tx = await pay(address, 2_000_000n);
    await anvil.mine(1);
    const block = (await anvil.send("eth_getBlockByNumber", [`0x${(await anvil.blockOf(tx)).toString(16)}`, false])) as { timestamp: string };
    expect(Number(block.timestamp)).toBe(at);
    const [timed] = await tron.tokenReceipts(USDT, address, { since, minedAt: true });
    expect([timed?.txHash, timed?.minedAt]).toEqual([tx.slice(2), new Date(at * 1000)]);
    const [plain] = await tron.tokenReceipts(USDT, address, { since });
    expect(plain !== undefined && "minedAt" in plain).toBe(false);
  });

  it("drops a transfer whose block a reorganisation replaced", async () => {
    const address = merchant()(0);
    const tron = client();
    const since = new Date();
    const tx = await pay(address, 7_000_000n);
    await anvil.mine(2);
    expect((await tron.tokenReceipts(USDT, address, { since })).map((r) => [r.key, r.confirmations])).toEqual([[`${tx.slice(2)}:0`, 3]]);
    await anvil.reorg(3);
    expect(await tron.tokenReceipts(USDT, address, { since })).toEqual([]);
  });

  it("does not count a transfer of another token to the address", async () => {
    const address = merchant()(0);
    const other = `0x${"ab".repeat(20)}`;
    await anvil.setCode(other, compiled.contracts.TestToken6.deployedBytecode);
    await anvil.sendTransaction({ to: other, data: abiCall("mint(address,uint256)", tronAddressToHex(address), 9_000_000n) });
    expect(await client().tokenReceipts(USDT, address, { since: new Date(Date.now() - 60_000) })).toEqual([]);
  });
});

describe("what a per-payment address holds (the funds left on it)", () => {
  it("reads its USDT balance and the TRX it has for fees, exactly", async () => {
    const address = merchant()(0);
    const tron = client();
    const before = await tron.holdings(USDT, address);
    expect([before.token.toFixed(), before.trx.toFixed()]).toEqual(["0", "0"]);
    await pay(address, 20_000_001n);
    await anvil.sendTransaction({ to: tronAddressToHex(address), value: 13_500_000n }); // 13.5 TRX in sun
    const held = await tron.holdings(USDT, address);
    expect([held.token.toFixed(), held.trx.toFixed()]).toEqual(["20.000001", "13.5"]);
  });
});

describe("the TRON node's chain (eth_chainId)", () => {
  /** A proxy to anvil that records the methods asked. */
  async function proxy(target: string) {
    const server = await serve((res, req) => {
      void fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: req.body }).then(async (answer) => {
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(await answer.text());
      });
    });
    return {
      url: server.url,
      methods: () => server.requests.map((r) => (JSON.parse(r.body) as { method: string }).method),
      keys: () => server.requests.map((r) => r.headers["tron-pro-api-key"]),
    };
  }

  it("sends a TronGrid API key with every request, and never shows it", async () => {
    const p = await proxy(anvil.url);
    const secret = "3f2a9c1e-5b7d-4e8f-a0b1-c2d3e4f5a6b7";
    const tron = new TronRpcClient({ url: p.url, timeoutMs: 5000, headMaxAgeMs: 0, apiKey: secret, chain: tronChain(true, "PAYGATE_TRON_RPC_URL") });
    const error = await tron.tokenReceipts(USDT, merchant()(0), { since: new Date() }).catch((e: unknown) => e);
    expect((error as Error).message).not.toContain(secret);
    const keyless = client(p.url);
    await keyless.tokenReceipts(USDT, merchant()(0), { since: new Date() });
    const keys = p.keys();
    expect(keys[0]).toBe(secret);
    expect(keys.slice(1)).toEqual(keys.slice(1).map(() => undefined));
    expect(keys.length).toBeGreaterThan(2);
  });

  it("refuses a Nile node in live mode, reading nothing from it, naming the variable to fix", async () => {
    const p = await proxy(anvil.url);
    const tron = client(p.url, true);
    const error = await tron.tokenReceipts(USDT, merchant()(0), { since: new Date() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainNodeError);
    expect((error as Error).message).toBe(
      `TRON JSON-RPC (${new URL(p.url).host}): the node is on chain id 3448148188 (TRON Nile testnet), not 728126428 (TRON): set PAYGATE_TRON_RPC_URL to a node of TRON`,
    );
    expect(p.methods()).toEqual(["eth_chainId"]);
  });

  it("refuses an Ethereum node given as TRON's", async () => {
    const sepolia = await startAnvil({ chainId: 11_155_111 });
    try {
      await expect(client(sepolia.url).tokenReceipts(USDT, merchant()(0), { since: new Date() })).rejects.toThrow(
        `TRON JSON-RPC (${new URL(sepolia.url).host}): the node is on chain id 11155111 (Ethereum Sepolia testnet), not 3448148188 (TRON Nile testnet): set ${TEST_VARIABLE} to a node of TRON Nile testnet`,
      );
    } finally {
      await sepolia.stop();
    }
  });

  it("refuses a malformed address or contract before asking the node anything", async () => {
    const p = await proxy(anvil.url);
    const tron = client(p.url);
    await expect(tron.tokenReceipts(USDT, "0xa614f803b6fd780986a42c78ec9c7f77e6ded13c", { since: new Date() })).rejects.toThrow(
      '"0xa614f803b6fd780986a42c78ec9c7f77e6ded13c" is a hex address; give the TRON address in its usual form, 34 characters starting with T',
    );
    await expect(
      tron.tokenReceipts({ contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u", decimals: 6 }, merchant()(0), { since: new Date() }),
    ).rejects.toThrow(RangeError);
    expect(p.methods()).toEqual([]);
  });
});

describe("USDT on tron through the chain watchers and their configuration", () => {
  const usdt = cryptoBySlug("USDT") as CryptoCurrency;

  it("reads a payment on tron through the test-mode TRON node, and names the variable of a mode without one", async () => {
    const w = new ChainWatchers({
      timeoutMs: 5000,
      esplora: { BTC: {}, LTC: {} },
      evm: { ethereum: {}, bsc: {} },
      tron: { test: anvil.url },
      evmTuning: { headMaxAgeMs: 0 },
    });
    const address = merchant()(0);
    const since = new Date();
    const tx = await pay(address, 3_000_000n);
    const read = (isLive: boolean) => w.receiptsTo(usdt, isLive, address, { since, requiredConfirmations: 19, network: "tron" });
    expect(view(await read(false)).map((r) => [r.key, r.amount, r.confirmations])).toEqual([[`${tx.slice(2)}:0`, "3", 1]]);
    expect([w.supports(usdt, false, "tron"), w.supports(usdt, true, "tron"), w.backendOf(usdt, false, "tron")]).toEqual([true, false, "tron"]);
    await expect(read(true)).rejects.toThrow(new ChainNotConfiguredError("no node configured for USDT on tron live (set PAYGATE_TRON_RPC_URL)"));
    // USDT without a network is Ethereum's, which has no node here.
    await expect(w.receiptsTo(usdt, false, address, { since, requiredConfirmations: 1 })).rejects.toThrow("(set PAYGATE_ETH_TEST_RPC_URL)");
  });

  it("takes TronGrid's endpoints by default, an API key, and 19 confirmations unless told otherwise", () => {
    const config = chainConfig(ChainEnvSchema.parse({}));
    expect(config.tron).toEqual({ live: "https://api.trongrid.io/jsonrpc", test: "https://nile.trongrid.io/jsonrpc" });
    expect(config.tronApiKey).toBeUndefined();
    expect(config.requiredConfirmations(usdt, "tron")).toBe(19);
    expect(config.finalityConfirmations(usdt, "tron")).toBe(19);
    const set = chainConfig(
      ChainEnvSchema.parse({ PAYGATE_TRON_RPC_URL: "none", PAYGATE_TRON_API_KEY: " 3f2a9c1e-5b7d ", PAYGATE_CONFIRMATIONS_TRON: "0" }),
    );
    expect([set.tron?.live, set.tronApiKey, set.requiredConfirmations(usdt, "tron"), set.finalityConfirmations(usdt, "tron")]).toEqual([
      undefined,
      "3f2a9c1e-5b7d",
      0,
      19, // a solidified block, whatever counts as paid
    ]);
    const refused = ChainEnvSchema.safeParse({ PAYGATE_TRON_API_KEY: "two words", PAYGATE_CONFIRMATIONS_TRON: "-1" });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["PAYGATE_TRON_API_KEY", "must be 1 to 200 printable characters without spaces"],
      ["PAYGATE_CONFIRMATIONS_TRON", expect.stringMatching(/>=0/)],
    ]);
  });
});

describe("what a TRC-20 refund burns, from the TRON node (issue 26)", () => {
  const rpc = async (method: string, params: unknown[]) => {
    const answer = await fetch(anvil.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return BigInt(((await answer.json()) as { result: string }).result);
  };
  const watchers = () =>
    new ChainWatchers({
      timeoutMs: 5000,
      esplora: { BTC: {}, LTC: {} },
      evm: { ethereum: {}, bsc: {} },
      tron: { test: anvil.url },
      evmTuning: { headMaxAgeMs: 0 },
    });
  const refundRequest = (paymentAddress: string, destination: string) => ({
    coin: "USDT",
    network: "tron",
    isLive: false,
    walletId: 1,
    derivationIndex: 0,
    paymentAddress,
    receipts: [],
    destination,
    amount: "2.5",
    feeRate: null,
    deductNetworkFee: false,
  });

  it("is the node's energy estimate of the transfer times its energy price, plus the bandwidth, in TRX", async () => {
    const addresses = merchant();
    const [paid, customer] = [addresses(40), addresses(41)];
    await pay(paid, 5_000_000n);
    const cost = await client().tokenTransferCost(USDT, paid, customer, 2_500_000n);
    const data = abiCall("transfer(address,uint256)", tronAddressToHex(customer), 2_500_000n);
    const energy = await rpc("eth_estimateGas", [{ from: tronAddressToHex(paid), to: TOKEN_HEX, value: "0x0", data }]);
    const price = await rpc("eth_gasPrice", []);
    expect(energy).toBeGreaterThan(21_000n);
    expect([cost.energy, cost.sunPerEnergy]).toEqual([energy, price]);
    const sun = energy * price + 345_000n;
    expect(cost.trx.toFixed()).toBe(`${sun / 1_000_000n}.${(sun % 1_000_000n).toString().padStart(6, "0")}`.replace(/\.?0+$/, ""));

    const rails = new RefundRails({ rails: new HdWalletRails({}), wallets: async () => null, chains: watchers() });
    const got = await rails.instructions(refundRequest(paid, customer));
    expect(got.gasNeeded).toEqual({ coin: "TRX", amount: cost.trx.toFixed() });
    expect(got.uri).toContain(customer);
  });

  it("falls back to the usual 30 TRX when the node cannot estimate (the address no longer holds the amount) or none is configured", async () => {
    const addresses = merchant();
    const [empty, customer] = [addresses(42), addresses(43)];
    await expect(client().tokenTransferCost(USDT, empty, customer, 2_500_000n)).rejects.toThrow();
    const withNode = new RefundRails({ rails: new HdWalletRails({}), wallets: async () => null, chains: watchers() });
    expect((await withNode.instructions(refundRequest(empty, customer))).gasNeeded).toEqual({ coin: "TRX", amount: "30" });
    const withoutNode = new RefundRails({ rails: new HdWalletRails({}), wallets: async () => null });
    expect((await withoutNode.instructions(refundRequest(empty, customer))).gasNeeded).toEqual({ coin: "TRX", amount: "30" });
  });
});
