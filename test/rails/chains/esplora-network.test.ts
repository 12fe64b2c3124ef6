// The Esplora client's network check: the genesis block (`/block-height/0`) asked before the first
// read and again after a connection failure; a server of another network is refused with one message
// naming the network it serves, the one expected and the variable to fix, and nothing is read from it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ChainNodeError } from "../../../src/rails/chains/errors.ts";
import { EsploraClient, esploraNetwork, GENESIS } from "../../../src/rails/chains/esplora.ts";
import { startFakeEsplora, type FakeEsplora } from "./fake-esplora.ts";

const ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const SINCE = new Date(0);
let node: FakeEsplora;
beforeAll(async () => {
  node = await startFakeEsplora();
});
afterAll(() => node.close());
beforeEach(() => {
  node.requests.length = 0;
  node.failure = null;
  node.genesis = GENESIS.bitcoinMain;
});

const client = () =>
  new EsploraClient({
    baseUrl: node.url,
    timeoutMs: 1000,
    name: "BTC live Esplora (here)",
    tipMaxAgeMs: 0,
    network: esploraNetwork("BTC", "live", "PAYGATE_BTC_ESPLORA_URL"),
  });

async function refusal(read: Promise<unknown>): Promise<ChainNodeError> {
  const error = await read.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChainNodeError);
  return error as ChainNodeError;
}

describe("Esplora network check", () => {
  it("asks the genesis block once before the first read, not at every read", async () => {
    const esplora = client();
    await esplora.receiptsTo(ADDRESS, { since: SINCE });
    await esplora.receiptsTo(ADDRESS, { since: SINCE });
    expect(node.requests.filter((path) => path === "/block-height/0")).toHaveLength(1);
    expect(node.requests[0]).toBe("/block-height/0");
  });

  it("refuses a Litecoin server given for Bitcoin mainnet, naming both and the variable, and reads nothing from it", async () => {
    node.genesis = GENESIS.litecoinMain;
    const error = await refusal(client().receiptsTo(ADDRESS, { since: SINCE }));
    expect(error.reason).toBe("wrong_network");
    expect(error.message).toBe(
      "BTC live Esplora (here): the server is on Litecoin mainnet, not Bitcoin mainnet: nothing is read from it (set PAYGATE_BTC_ESPLORA_URL to an Esplora API of Bitcoin mainnet)",
    );
    expect(node.requests).toEqual(["/block-height/0"]);
  });

  it("refuses a test network's server in live mode, and a mainnet server in test mode", async () => {
    node.genesis = GENESIS.bitcoinTestnet4;
    expect((await refusal(client().receiptsTo(ADDRESS, { since: SINCE }))).message).toContain(
      "the server is on Bitcoin testnet4, not Bitcoin mainnet",
    );
    node.genesis = GENESIS.bitcoinMain;
    const test = new EsploraClient({ baseUrl: node.url, timeoutMs: 1000, network: esploraNetwork("BTC", "test", "PAYGATE_BTC_TEST_ESPLORA_URL") });
    expect((await refusal(test.receiptsTo(ADDRESS, { since: SINCE }))).message).toContain(
      "the server is on Bitcoin mainnet, not a Bitcoin test network (testnet3, testnet4, signet or regtest): nothing is read from it (set PAYGATE_BTC_TEST_ESPLORA_URL",
    );
    for (const genesis of [GENESIS.bitcoinTestnet3, GENESIS.bitcoinSignet, GENESIS.bitcoinRegtest]) {
      node.genesis = genesis;
      const accepted = new EsploraClient({
        baseUrl: node.url,
        timeoutMs: 1000,
        network: esploraNetwork("BTC", "test", "PAYGATE_BTC_TEST_ESPLORA_URL"),
      });
      expect(await accepted.receiptsTo(ADDRESS, { since: SINCE })).toEqual([]);
    }
  });

  it("names a network it does not know by its genesis hash, and refuses an answer that is no block hash as malformed", async () => {
    node.genesis = "ab".repeat(32);
    expect((await refusal(client().receiptsTo(ADDRESS, { since: SINCE }))).message).toContain(
      `the server is on a network this gateway does not know (block 0 is ${"ab".repeat(32)}), not Bitcoin mainnet`,
    );
    node.genesis = "<html>maintenance</html>";
    const error = await refusal(client().receiptsTo(ADDRESS, { since: SINCE }));
    expect(error.reason).toBe("malformed");
    expect(error.message).toBe('BTC live Esplora (here): /block-height/0 did not answer a block hash: "<html>maintenance</html>"');
  });

  it("asks again after a connection failure: a server that came back as another network's is refused", async () => {
    const esplora = client();
    await esplora.receiptsTo(ADDRESS, { since: SINCE });
    node.failure = "reset";
    expect((await refusal(esplora.receiptsTo(ADDRESS, { since: SINCE }))).reason).toBe("unreachable");
    node.failure = null;
    node.genesis = GENESIS.bitcoinTestnet4;
    expect((await refusal(esplora.receiptsTo(ADDRESS, { since: SINCE }))).reason).toBe("wrong_network");
    expect(node.requests.filter((path) => path === "/block-height/0")).toHaveLength(2);
  });
});
