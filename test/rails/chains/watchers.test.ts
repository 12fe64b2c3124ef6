// ChainWatchers: routing each currency and mode to its node, the configuration variables, and the
// message when a chain has no node.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency, type CryptoSlug } from "../../../src/core/money/currencies.ts";
import { ChainEnvSchema, chainConfig } from "../../../src/rails/chains/config.ts";
import { ChainNotConfiguredError, ChainWatchers } from "../../../src/rails/chains/index.ts";
import type { ChainWatchersOptions } from "../../../src/rails/chains/options.ts";
import { GENESIS } from "../../../src/rails/chains/esplora.ts";
import { USDT_ETHEREUM_CONTRACT, USDT_SEPOLIA_CONTRACT } from "../../../src/rails/wallets/networks.ts";
import { startFakeEsplora, txid, type FakeEsplora } from "./fake-esplora.ts";
import { hash, startFakeEvmNode, type FakeEvmNode } from "./fake-evm-node.ts";

const coin = (slug: CryptoSlug) => cryptoBySlug(slug) as CryptoCurrency;
const BTC_ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const TB_ADDRESS = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx";
const LTC_ADDRESS = "ltc1qg82tzmn9ce38ty0qalvrmm4utjt7lvj3nlqlq0";
const EVM_ADDRESS = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";
const SINCE = new Date(1_700_000_000 * 1000);
const OPTIONS = { since: SINCE, requiredConfirmations: 12 };

let btcLive: FakeEsplora, btcTest: FakeEsplora, ltcLive: FakeEsplora;
let ethLive: FakeEvmNode, ethTest: FakeEvmNode, bscLive: FakeEvmNode;
beforeAll(async () => {
  [btcLive, btcTest, ltcLive] = await Promise.all([startFakeEsplora(), startFakeEsplora(), startFakeEsplora()]);
  btcLive.genesis = GENESIS.bitcoinMain;
  ltcLive.genesis = GENESIS.litecoinMain;
  [ethLive, ethTest, bscLive] = await Promise.all([startFakeEvmNode(), startFakeEvmNode(), startFakeEvmNode()]);
  ethTest.chainId = 11_155_111;
  bscLive.chainId = 56;
});
afterAll(async () => {
  await Promise.all([btcLive, btcTest, ltcLive, ethLive, ethTest, bscLive].map((n) => n.close()));
});
beforeEach(() => {
  for (const n of [btcLive, btcTest, ltcLive]) {
    n.txs = [];
    n.requests.length = 0;
  }
  for (const n of [ethLive, ethTest, bscLive]) {
    n.logs = [];
    n.transfers = [];
    n.calls.length = 0;
    n.dropBalancesFrom(EVM_ADDRESS, 0);
  }
});

const headTime = (n: FakeEvmNode) => (n.genesisTime + n.head * n.blockSeconds) * 1000;

function watchers(overrides: Partial<ChainWatchersOptions> = {}) {
  return new ChainWatchers({
    timeoutMs: 1000,
    esplora: { BTC: { live: btcLive.url, test: btcTest.url }, LTC: { live: ltcLive.url } },
    evm: { ethereum: { live: ethLive.url, test: ethTest.url }, bsc: { live: bscLive.url } },
    evmTuning: { now: () => headTime(ethLive), headMaxAgeMs: 0 },
    esploraTuning: { tipMaxAgeMs: 0 },
    ...overrides,
  });
}

describe("ChainWatchers: routing", () => {
  it("asks BTC live and test, and LTC, of their own Esplora servers", async () => {
    btcLive.txs.push({ txid: txid(1), outputs: [{ address: BTC_ADDRESS, value: 1 }], height: null });
    btcTest.txs.push({ txid: txid(2), outputs: [{ address: TB_ADDRESS, value: 2 }], height: null });
    ltcLive.txs.push({ txid: txid(3), outputs: [{ address: LTC_ADDRESS, value: 3 }], height: 100 });
    const w = watchers();
    expect((await w.receiptsTo(coin("BTC"), true, BTC_ADDRESS, OPTIONS)).map((r) => r.key)).toEqual([`${txid(1)}:0`]);
    expect((await w.receiptsTo(coin("BTC"), false, TB_ADDRESS, OPTIONS)).map((r) => r.key)).toEqual([`${txid(2)}:0`]);
    expect((await w.receiptsTo(coin("LTC"), true, LTC_ADDRESS, OPTIONS)).map((r) => [r.key, r.amount.toFixed(), r.confirmations])).toEqual([
      [`${txid(3)}:0`, "0.00000003", 1],
    ]);
    // Each server's network is checked at its first read (its genesis block).
    expect(btcLive.requests).toEqual(["/block-height/0", "/blocks/tip/height", `/address/${BTC_ADDRESS}/txs`]);
    expect(btcTest.requests).toEqual(["/block-height/0", "/blocks/tip/height", `/address/${TB_ADDRESS}/txs`]);
    expect(ltcLive.requests).toHaveLength(3);
  });

  it("reads ETH and BNB transfer by transfer from the blocks of each chain's node, after checking its chain id", async () => {
    ethLive.transfers.push({ to: EVM_ADDRESS, value: 10n ** 18n, txHash: hash(1), blockNumber: 995 });
    bscLive.transfers.push({ to: EVM_ADDRESS, value: 3n * 10n ** 17n, txHash: hash(2), blockNumber: 998 });
    const w = watchers();
    const since = new Date(headTime(ethLive) - 60_000);
    const seen = async (slug: CryptoSlug, requiredConfirmations: number) =>
      (await w.receiptsTo(coin(slug), true, EVM_ADDRESS, { since, requiredConfirmations })).map((r) => [r.key, r.amount.toFixed(), r.confirmations]);
    expect(await seen("ETH", 12)).toEqual([[hash(1), "1", 6]]);
    expect(await seen("BNB", 3)).toEqual([[hash(2), "0.3", 3]]);
    for (const n of [ethLive, bscLive]) expect(n.calls[0]?.method).toBe("eth_chainId");
    expect(ethTest.calls).toHaveLength(0);
  });

  it("refuses a node on the wrong chain, naming the variable: a BNB URL that points at an Ethereum node", async () => {
    const w = watchers({ evm: { ethereum: {}, bsc: { live: ethLive.url } } });
    await expect(w.receiptsTo(coin("BNB"), true, EVM_ADDRESS, OPTIONS)).rejects.toThrow(
      `BNB Smart Chain JSON-RPC (${new URL(ethLive.url).host}): the node is on chain id 1 (Ethereum), not 56 (BNB Smart Chain): set PAYGATE_BSC_RPC_URL to a node of BNB Smart Chain`,
    );
    expect(ethLive.calls.map((c) => c.method)).toEqual(["eth_chainId"]);
  });

  it("scans the blocks of a pass once for all its ETH addresses", async () => {
    const addresses = Array.from({ length: 20 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`);
    for (const [i, to] of addresses.slice(0, 3).entries()) ethLive.transfers.push({ to, value: 1n, txHash: hash(10 + i), blockNumber: 990 + i });
    const w = watchers({ evmTuning: { now: () => headTime(ethLive), headMaxAgeMs: 3_600_000 } });
    const since = new Date(headTime(ethLive) - 60_000);
    const payments = addresses.map((address) => ({ currency: coin("ETH"), isLive: true, address, since, receipts: [] }));
    w.beginPass(payments);
    const found = await Promise.all(payments.map((p) => w.receiptsTo(p.currency, true, p.address, { since, requiredConfirmations: 12 })));
    expect(found.map((r) => r.length)).toEqual(addresses.map((_, i) => (i < 3 ? 1 : 0)));
    const fullBlocks = ethLive.calls.filter((c) => c.method === "eth_getBlockByNumber" && c.params[1] === true).map((c) => Number(c.params[0]));
    expect(fullBlocks).toEqual(Array.from({ length: 16 }, (_, i) => 985 + i)); // since less 120 s is block 985: each block once
    expect(ethLive.calls.filter((c) => c.method === "eth_blockNumber")).toHaveLength(1);
  });

  it("reads USDT as Transfer logs of the mode's contract on Ethereum or Sepolia", async () => {
    const log = { from: "0x00000000000000000000000000000000000000bb", to: EVM_ADDRESS, value: 1_500_000n, blockNumber: 999, logIndex: 4 };
    ethLive.logs.push({ ...log, contract: USDT_ETHEREUM_CONTRACT, txHash: hash(1) });
    ethTest.logs.push({ ...log, contract: USDT_SEPOLIA_CONTRACT, txHash: hash(2) });
    const w = watchers({ evmTuning: { now: () => headTime(ethLive) } });
    const since = new Date(headTime(ethLive) - 60_000);
    expect(
      (await w.receiptsTo(coin("USDT"), true, EVM_ADDRESS, { since, requiredConfirmations: 12 })).map((r) => [
        r.key,
        r.amount.toFixed(),
        r.confirmations,
      ]),
    ).toEqual([[`${hash(1)}:4`, "1.5", 2]]);
    expect((await w.receiptsTo(coin("USDT"), false, EVM_ADDRESS, { since, requiredConfirmations: 12 })).map((r) => r.key)).toEqual([`${hash(2)}:4`]);
    const filter = (n: FakeEvmNode) => (n.calls.find((c) => c.method === "eth_getLogs")?.params[0] as { address: string }).address;
    expect(filter(ethLive)).toBe(USDT_ETHEREUM_CONTRACT.toLowerCase());
    expect(filter(ethTest)).toBe(USDT_SEPOLIA_CONTRACT.toLowerCase());
  });

  it("uses the USDT contract it is given, and refuses one that is not an address", async () => {
    const mine = "0x1111111111111111111111111111111111111111";
    const w = watchers({ usdtContracts: { live: mine } });
    await w.receiptsTo(coin("USDT"), true, EVM_ADDRESS, { since: new Date(headTime(ethLive)), requiredConfirmations: 12 });
    expect((ethLive.calls.find((c) => c.method === "eth_getLogs")?.params[0] as { address: string }).address).toBe(mine);
    expect(() => watchers({ usdtContracts: { test: "0x123" } })).toThrow("usdtContracts.test is not an EVM address: 0x123");
  });

  it("passes on the eth_getLogs chunk size", async () => {
    ethLive.maxLogsRange = 100;
    try {
      const w = watchers({ logsBlockRange: 100 });
      await w.receiptsTo(coin("USDT"), true, EVM_ADDRESS, { since: new Date(headTime(ethLive) - 3_600_000), requiredConfirmations: 12 });
      const ranges = ethLive.getLogsRanges();
      expect(ranges.length).toBeGreaterThan(3);
      expect(ranges.every(([from, to]) => to - from + 1 <= 100)).toBe(true);
    } finally {
      ethLive.maxLogsRange = null;
    }
  });
});

describe("ChainWatchers: chains without a node", () => {
  it("rejects with the variable to set", async () => {
    const w = new ChainWatchers({ timeoutMs: 1000, esplora: { BTC: {}, LTC: {} }, evm: { ethereum: {}, bsc: {} } });
    const cases: [CryptoSlug, boolean, string][] = [
      ["BTC", true, "no node configured for BTC live (set PAYGATE_BTC_ESPLORA_URL)"],
      ["BTC", false, "no node configured for BTC test (set PAYGATE_BTC_TEST_ESPLORA_URL)"],
      ["LTC", false, "no node configured for LTC test (set PAYGATE_LTC_TEST_ESPLORA_URL)"],
      ["ETH", true, "no node configured for ETH live (set PAYGATE_ETH_RPC_URL)"],
      ["USDT", false, "no node configured for USDT test (set PAYGATE_ETH_TEST_RPC_URL)"],
      ["BNB", true, "no node configured for BNB live (set PAYGATE_BSC_RPC_URL)"],
      ["BNB", false, "no node configured for BNB test (set PAYGATE_BSC_TEST_RPC_URL)"],
    ];
    for (const [slug, isLive, message] of cases) {
      const error = await w.receiptsTo(coin(slug), isLive, EVM_ADDRESS, OPTIONS).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChainNotConfiguredError);
      expect((error as Error).message).toBe(message);
    }
  });

  it("rejects for LTC test with the default configuration, which has no public node for it", async () => {
    const w = new ChainWatchers(chainConfig(ChainEnvSchema.parse({})));
    await expect(w.receiptsTo(coin("LTC"), false, LTC_ADDRESS, OPTIONS)).rejects.toThrow(
      "no node configured for LTC test (set PAYGATE_LTC_TEST_ESPLORA_URL)",
    );
  });
});

describe("ChainWatchers: configuration", () => {
  it("has public nodes, a 5 s timeout and per-chain confirmations by default", () => {
    const config = chainConfig(ChainEnvSchema.parse({}));
    expect(config.esplora).toEqual({
      BTC: { live: "https://blockstream.info/api", test: "https://mempool.space/testnet4/api" },
      LTC: { live: "https://litecoinspace.org/api", test: undefined },
    });
    expect(config.evm).toEqual({
      ethereum: { live: "https://ethereum-rpc.publicnode.com", test: "https://ethereum-sepolia-rpc.publicnode.com" },
      bsc: { live: "https://bsc-rpc.publicnode.com", test: "https://bsc-testnet-rpc.publicnode.com" },
      base: { live: "https://base-rpc.publicnode.com", test: "https://base-sepolia-rpc.publicnode.com" },
      polygon: { live: "https://polygon-bor-rpc.publicnode.com", test: "https://polygon-amoy-bor-rpc.publicnode.com" },
      arbitrum: { live: "https://arbitrum-one-rpc.publicnode.com", test: "https://arbitrum-sepolia-rpc.publicnode.com" },
    });
    expect(config.timeoutMs).toBe(5000);
    expect(config.logsBlockRange).toBe(2000);
    expect(config.testChainIds).toEqual({ ethereum: undefined, bsc: undefined }); // Sepolia's and BSC testnet's
    expect(config.confirmations).toEqual({ BTC: 2, LTC: 6, ETH: 12, USDT: 12, BNB: 15, USDC: 12 });
    expect(config.requiredConfirmations(coin("USDT"))).toBe(12);
    expect(config.requiredConfirmations("BNB")).toBe(15);
  });

  it("reads every variable; `none` switches a default node off", () => {
    const config = chainConfig(
      ChainEnvSchema.parse({
        PAYGATE_BTC_ESPLORA_URL: "http://electrs.local:3002",
        PAYGATE_BTC_TEST_ESPLORA_URL: "none",
        PAYGATE_LTC_ESPLORA_URL: "NONE",
        PAYGATE_LTC_TEST_ESPLORA_URL: "https://litecoinspace.org/testnet/api",
        PAYGATE_ETH_RPC_URL: "https://mainnet.infura.io/v3/KEY",
        PAYGATE_ETH_TEST_RPC_URL: "http://127.0.0.1:8545",
        PAYGATE_BSC_RPC_URL: "none",
        PAYGATE_BSC_TEST_RPC_URL: "https://bsc.example/rpc",
        PAYGATE_ETH_TEST_CHAIN_ID: "31337",
        PAYGATE_BSC_TEST_CHAIN_ID: "1337",
        PAYGATE_CHAIN_TIMEOUT_MS: "2500",
        PAYGATE_EVM_LOGS_BLOCK_RANGE: "500",
        PAYGATE_CONFIRMATIONS_BTC: "1",
        PAYGATE_CONFIRMATIONS_LTC: "0",
        PAYGATE_CONFIRMATIONS_ETH: "20",
        PAYGATE_CONFIRMATIONS_BNB: "30",
      }),
    );
    expect(config.esplora).toEqual({
      BTC: { live: "http://electrs.local:3002", test: undefined },
      LTC: { live: undefined, test: "https://litecoinspace.org/testnet/api" },
    });
    expect(config.evm).toEqual({
      ethereum: { live: "https://mainnet.infura.io/v3/KEY", test: "http://127.0.0.1:8545" },
      bsc: { live: undefined, test: "https://bsc.example/rpc" },
      base: { live: "https://base-rpc.publicnode.com", test: "https://base-sepolia-rpc.publicnode.com" },
      polygon: { live: "https://polygon-bor-rpc.publicnode.com", test: "https://polygon-amoy-bor-rpc.publicnode.com" },
      arbitrum: { live: "https://arbitrum-one-rpc.publicnode.com", test: "https://arbitrum-sepolia-rpc.publicnode.com" },
    });
    expect([config.timeoutMs, config.logsBlockRange]).toEqual([2500, 500]);
    expect(config.testChainIds).toEqual({ ethereum: 31337, bsc: 1337 });
    expect(config.confirmations).toEqual({ BTC: 1, LTC: 0, ETH: 20, USDT: 20, BNB: 30, USDC: 20 });
  });

  it("refuses bad values, naming the variable", () => {
    const problems = (env: Record<string, string>) => {
      const parsed = ChainEnvSchema.safeParse(env);
      return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join("."));
    };
    expect(problems({ PAYGATE_BTC_ESPLORA_URL: "blockstream.info/api" })).toEqual(["PAYGATE_BTC_ESPLORA_URL"]);
    expect(problems({ PAYGATE_ETH_RPC_URL: "ws://127.0.0.1:8546" })).toEqual(["PAYGATE_ETH_RPC_URL"]);
    expect(problems({ PAYGATE_CHAIN_TIMEOUT_MS: "50" })).toEqual(["PAYGATE_CHAIN_TIMEOUT_MS"]);
    expect(problems({ PAYGATE_CONFIRMATIONS_BTC: "-1" })).toEqual(["PAYGATE_CONFIRMATIONS_BTC"]);
    expect(problems({ PAYGATE_CONFIRMATIONS_ETH: "1.5" })).toEqual(["PAYGATE_CONFIRMATIONS_ETH"]);
    expect(problems({ PAYGATE_EVM_LOGS_BLOCK_RANGE: "0" })).toEqual(["PAYGATE_EVM_LOGS_BLOCK_RANGE"]);
    expect(problems({ PAYGATE_ETH_TEST_CHAIN_ID: "anvil" })).toEqual(["PAYGATE_ETH_TEST_CHAIN_ID"]);
    expect(problems({ PAYGATE_BSC_TEST_CHAIN_ID: "0" })).toEqual(["PAYGATE_BSC_TEST_CHAIN_ID"]);
  });

  it("refuses a main network's chain id for test mode", () => {
    for (const [variable, id] of [
      ["PAYGATE_ETH_TEST_CHAIN_ID", "1"],
      ["PAYGATE_BSC_TEST_CHAIN_ID", "56"],
      ["PAYGATE_ETH_TEST_CHAIN_ID", "56"],
    ] as const) {
      const parsed = ChainEnvSchema.safeParse({ [variable]: id });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((i) => `${i.path.join(".")} ${i.message}`)).toEqual([
        `${variable} is a main network's chain id: test mode never watches real money`,
      ]);
    }
  });

  it("builds working watchers from the variables", async () => {
    btcLive.txs.push({ txid: txid(9), outputs: [{ address: BTC_ADDRESS, value: 250_000_000 }], height: 99 });
    const config = chainConfig(ChainEnvSchema.parse({ PAYGATE_BTC_ESPLORA_URL: btcLive.url, PAYGATE_CHAIN_TIMEOUT_MS: "1000" }));
    const w = new ChainWatchers(config);
    const receipts = await w.receiptsTo(coin("BTC"), true, BTC_ADDRESS, { since: SINCE, requiredConfirmations: config.requiredConfirmations("BTC") });
    expect(receipts.map((r) => [r.key, r.amount.toFixed(), r.confirmations])).toEqual([[`${txid(9)}:0`, "2.5", 2]]);
  });
});
