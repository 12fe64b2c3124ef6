// The node pool's rules (node-pool.ts) through the JSON-RPC client, on two local nodes answering as
// geth does (fake-evm-node.ts): what a real node cannot produce on demand (a hang, garbage) sets the
// first aside and the read goes to the second; back-off doubles; a lagging node and one on another
// chain are set aside; with none left, the read is refused naming each node; a node's own JSON-RPC
// error is an answer, not a fault. The anvil failover of whole payments is in test/e2e/failover-anvil.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ChainNodeError } from "../../../src/rails/chains/errors.ts";
import { EvmRpcClient, type EvmRpcOptions } from "../../../src/rails/chains/evm-rpc.ts";
import { EsploraClient } from "../../../src/rails/chains/esplora.ts";
import { startFakeEsplora, type FakeEsplora } from "./fake-esplora.ts";
import { startFakeEvmNode, type FakeEvmNode } from "./fake-evm-node.ts";

let first: FakeEvmNode;
let second: FakeEvmNode;
let clock: number;
beforeAll(async () => {
  [first, second] = await Promise.all([startFakeEvmNode(), startFakeEvmNode()]);
});
afterAll(() => Promise.all([first.close(), second.close()]));
beforeEach(() => {
  clock = 1_000_000;
  for (const node of [first, second]) {
    node.head = 1000;
    node.chainId = 11_155_111;
    node.calls.length = 0;
    node.failure = null;
  }
});

const SEPOLIA = { id: 11_155_111, network: "Sepolia", variable: "PAYGATE_ETH_TEST_RPC_URL" };

function client(options: Partial<EvmRpcOptions> = {}) {
  return new EvmRpcClient({
    url: [first.url, second.url],
    timeoutMs: 300,
    blockTimeSeconds: 12,
    name: "Sepolia JSON-RPC",
    headMaxAgeMs: 0,
    chain: SEPOLIA,
    maxLagBlocks: 5,
    pool: { probeIntervalMs: 60_000, backoffMs: { first: 1_000, max: 8_000 }, now: () => clock },
    ...options,
  });
}

const host = (node: FakeEvmNode) => new URL(node.url).host;
const methods = (node: FakeEvmNode) => node.calls.map((c) => c.method);
const states = (c: EvmRpcClient) => c.pool.health().map((n) => n.state);

describe("node pool: failover", () => {
  it("reads the first node while it is healthy, after checking each node's chain and head", async () => {
    const c = client();
    expect(await c.blockNumber()).toBe(1000);
    expect(methods(first)).toEqual(["eth_chainId", "eth_blockNumber", "eth_blockNumber"]);
    expect(methods(second)).toEqual(["eth_chainId", "eth_blockNumber"]); // probed, not read
    expect(c.pool.health()).toEqual([
      { index: 1, host: host(first), state: "healthy", head: 1000, failures: 0, retryAt: null, error: null },
      { index: 2, host: host(second), state: "healthy", head: 1000, failures: 0, retryAt: null, error: null },
    ]);
  });

  it("sets a node that does not answer in time aside, reads the next, and probes it again after a back-off that doubles", async () => {
    const c = client();
    await c.blockNumber();
    first.failure = "hang";
    second.head = 1001;
    expect(await c.blockNumber()).toBe(1001); // the timeout of the first, then the second
    const [one] = c.pool.health();
    expect(one).toMatchObject({ state: "failing", failures: 1, retryAt: new Date(clock + 1_000) });
    expect(one?.error).toMatch(new RegExp(`^Sepolia JSON-RPC node 1 \\(${host(first)}\\) eth_blockNumber: .*300 ms`));
    first.calls.length = 0;
    clock += 999; // within the back-off: not asked
    expect(await c.blockNumber()).toBe(1001);
    expect(first.calls).toHaveLength(0);
    clock += 1; // the back-off ends: probed, still hanging, so twice as long
    expect(await c.blockNumber()).toBe(1001);
    expect(c.pool.health()[0]).toMatchObject({ state: "failing", failures: 2, retryAt: new Date(clock + 2_000) });
    first.failure = null;
    first.head = 1001;
    clock += 2_000; // answers again: healthy, and read first again
    second.calls.length = 0;
    expect(await c.blockNumber()).toBe(1001);
    expect(states(c)).toEqual(["healthy", "healthy"]);
    expect(c.pool.health()[0]).toMatchObject({ failures: 0, retryAt: null, error: null });
    expect(methods(second)).toEqual(["eth_blockNumber"]); // its head compared in the round the back-off's end started; not read
  });

  it("caps the back-off", async () => {
    const c = client();
    first.failure = { status: 502, body: "Bad Gateway" };
    for (let i = 0; i < 6; i++) {
      expect(await c.blockNumber()).toBe(1000);
      clock += 60_000;
    }
    const [one] = c.pool.health();
    expect(one?.failures).toBe(6);
    expect(one?.retryAt?.getTime()).toBe(clock - 60_000 + 8_000);
    expect(one?.error).toBe(`Sepolia JSON-RPC node 1 (${host(first)}) eth_chainId: HTTP 502 Bad Gateway: Bad Gateway`);
  });

  it("sets a node aside for an answer that is not JSON-RPC, and for an HTTP error", async () => {
    const c = client();
    first.failure = { raw: "<html>maintenance</html>" };
    expect(await c.blockNumber()).toBe(1000);
    expect(c.pool.health()[0]?.error).toBe(
      `Sepolia JSON-RPC node 1 (${host(first)}): eth_chainId answered nonsense: the answer is not JSON: <html>maintenance</html>`,
    );
    second.failure = { status: 429, body: "slow down" };
    clock += 60_000;
    const error = await c.blockNumber().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainNodeError);
    expect((error as ChainNodeError).message).toBe(
      `Sepolia JSON-RPC: no node can be read now (Sepolia JSON-RPC node 1 (${host(first)}): eth_chainId answered nonsense: the answer is not JSON: <html>maintenance</html>; Sepolia JSON-RPC node 2 (${host(second)}) eth_blockNumber: rate limited (HTTP 429 Too Many Requests): slow down)`,
    );
    expect(states(c)).toEqual(["failing", "failing"]);
  });

  it("passes a node's own JSON-RPC error through: an answer, not a failing node", async () => {
    const c = client();
    await c.blockNumber();
    first.failure = (call) => (call.method === "eth_getBalance" ? { rpcError: { code: -32602, message: "invalid argument 1" } } : null);
    await expect(c.balance("0x8ba1f109551bD432803012645Ac136ddd64DBA72", 900)).rejects.toThrow(
      `Sepolia JSON-RPC node 1 (${host(first)}): eth_getBalance failed: JSON-RPC error -32602: invalid argument 1`,
    );
    expect(states(c)).toEqual(["healthy", "healthy"]);
    expect(methods(second)).not.toContain("eth_getBalance");
  });
});

describe("node pool: lag and chain", () => {
  it("sets aside a node more than maxLagBlocks behind the others' head, and takes it back once it caught up", async () => {
    const c = client();
    second.head = 1005; // 5 behind: still fine
    expect(await c.blockNumber()).toBe(1000);
    expect(states(c)).toEqual(["healthy", "healthy"]);
    second.head = 1006; // 6 behind
    clock += 60_000; // the next probe round
    expect(await c.blockNumber()).toBe(1006);
    expect(c.pool.health()[0]).toMatchObject({
      state: "lagging",
      head: 1000,
      error: `Sepolia JSON-RPC node 1 (${host(first)}): its head 1000 is 6 blocks behind the others' 1006 (more than 5)`,
    });
    first.head = 1006;
    clock += 1_000;
    expect(await c.blockNumber()).toBe(1006);
    expect(states(c)).toEqual(["healthy", "healthy"]);
    first.calls.length = 0;
    await c.blockNumber();
    expect(methods(first)).toEqual(["eth_blockNumber"]); // read from the first again
  });

  it("sets aside a node on another chain, naming its chain and the variable, and reads none from it", async () => {
    first.chainId = 1;
    const c = client();
    expect(await c.checkNode()).toBe(`chain id 11155111 (Ethereum Sepolia testnet) at Sepolia JSON-RPC node 2 (${host(second)})`);
    expect(c.pool.health()[0]).toMatchObject({
      state: "wrong_chain",
      error: `Sepolia JSON-RPC node 1 (${host(first)}): the node is on chain id 1 (Ethereum), not 11155111 (Sepolia): set PAYGATE_ETH_TEST_RPC_URL to a node of Sepolia`,
    });
    await c.blockNumber();
    expect(methods(first)).toEqual(["eth_chainId"]);
  });

  it("with every node set aside: refuses without asking, is not available, and is available again once one answers", async () => {
    first.failure = "reset";
    second.chainId = 56;
    const c = client();
    await expect(c.blockNumber()).rejects.toThrow(
      /^Sepolia JSON-RPC: no node can be read now \(.*node 1.*; .*node 2.*chain id 56 \(BNB Smart Chain\)/,
    );
    expect(await c.pool.available()).toBe(false);
    const asked = first.calls.length + second.calls.length;
    await expect(c.blockNumber()).rejects.toThrow(ChainNodeError);
    expect(first.calls.length + second.calls.length).toBe(asked);
    first.failure = null;
    clock += 1_000;
    expect(await c.pool.available()).toBe(true); // probed because the back-off ended
    expect(states(c)).toEqual(["healthy", "wrong_chain"]);
    expect(await c.blockNumber()).toBe(1000);
  });

  it("a single node is always read (there is no other), its failures recorded for its health; initiate is not refused", async () => {
    const c = client({ url: first.url, name: `Sepolia JSON-RPC (${host(first)})` });
    first.failure = "reset";
    await expect(c.blockNumber()).rejects.toThrow(ChainNodeError);
    expect(c.pool.health()[0]).toMatchObject({ state: "failing", failures: 1 });
    expect(await c.pool.available()).toBe(true); // as before lists: the watcher says what fails
    first.failure = null;
    expect(await c.blockNumber()).toBe(1000); // asked again at once
    expect(c.pool.health()[0]).toMatchObject({ state: "healthy", failures: 0 });
  });
});

describe("node pool: Esplora", () => {
  let a: FakeEsplora;
  let b: FakeEsplora;
  beforeAll(async () => {
    [a, b] = await Promise.all([startFakeEsplora(), startFakeEsplora()]);
  });
  afterAll(() => Promise.all([a.close(), b.close()]));

  it("fails over from a server that errs to the next, and compares their tips", async () => {
    const c = new EsploraClient({ baseUrl: [a.url, b.url], timeoutMs: 300, name: "BTC test Esplora", tipMaxAgeMs: 0, pool: { now: () => clock } });
    a.tip = 100;
    b.tip = 100;
    expect(await c.tipHeight()).toBe(100);
    a.failure = { status: 503, body: "down" };
    b.tip = 101;
    expect(await c.tipHeight()).toBe(101);
    expect(c.pool.health().map((n) => n.state)).toEqual(["failing", "healthy"]);
    a.failure = null;
    a.tip = 98; // 3 behind: more than 2
    clock += 1_000;
    expect(await c.tipHeight()).toBe(101);
    expect(c.pool.health()[0]?.state).toBe("lagging");
  });
});

describe("node pool: the variables' list syntax", () => {
  it("takes several URLs separated by commas or spaces, own node first; one URL as before", async () => {
    const { ChainEnvSchema, chainConfig } = await import("../../../src/rails/chains/config.ts");
    const config = chainConfig(
      ChainEnvSchema.parse({
        PAYGATE_ETH_TEST_RPC_URL: "http://127.0.0.1:8545, https://sepolia.infura.io/v3/KEY",
        PAYGATE_BTC_ESPLORA_URL: "http://electrs.local:3002 https://blockstream.info/api",
        PAYGATE_BSC_TEST_RPC_URL: "http://127.0.0.1:8546",
        PAYGATE_NODE_MAX_LAG_BLOCKS: "7",
      }),
    );
    expect(config.evm.ethereum?.test).toEqual(["http://127.0.0.1:8545", "https://sepolia.infura.io/v3/KEY"]);
    expect(config.esplora.BTC.live).toEqual(["http://electrs.local:3002", "https://blockstream.info/api"]);
    expect(config.evm.bsc?.test).toBe("http://127.0.0.1:8546");
    expect(config.nodePool).toEqual({ maxLagBlocks: 7, probeIntervalMs: 10_000 });
  });

  it("refuses a list with one URL that is not http(s), naming the variable", async () => {
    const { ChainEnvSchema } = await import("../../../src/rails/chains/config.ts");
    const parsed = ChainEnvSchema.safeParse({ PAYGATE_ETH_RPC_URL: "http://127.0.0.1:8545,ftp://node.example" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["PAYGATE_ETH_RPC_URL", "must be http:// or https:// URLs separated by commas (own node first, providers after), or none"],
    ]);
    expect(ChainEnvSchema.safeParse({ PAYGATE_NODE_MAX_LAG_BLOCKS: "0" }).error?.issues[0]?.message).toBe("must be at least 1 block");
  });
});
