// A sweep plan's TRON figures (issue 40; docs/settlement.md, Sweeping fresh addresses) from a TRON
// node's JSON-RPC, against anvil with Nile's chain id (as test/rails/chains/tron-anvil.test.ts): the
// node's energy estimate at its energy price plus 345 bandwidth, the 1 TRX activation of an address
// that holds no TRX, and TRON's documented figures when the node gives no estimate.
// No database: this file runs once per CI run (vitest.config.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../../src/core/money/currencies.ts";
import { ChainWatchers } from "../../../src/rails/chains/index.ts";
import { NodeSweepQuotes } from "../../../src/rails/settlement/sweep-quotes.ts";
import { createTronTestWallet, deriveTronAddress, tronAddressToHex, tronReceiveChain } from "../../../src/rails/wallets/tron.ts";
import type { Anvil } from "../../support/anvil.ts";
import { TEST_TOKENS } from "../../support/forwarders.ts";
import { abiCall, payUsdt, startNileWithUsdt, TOKEN_HEX } from "../../e2e/tron.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;
let anvil: Anvil;
beforeAll(async () => {
  anvil = await startNileWithUsdt();
});
afterAll(() => anvil.stop());

const quotes = () =>
  new NodeSweepQuotes(
    new ChainWatchers({
      timeoutMs: 5000,
      esplora: { BTC: {}, LTC: {} },
      evm: { ethereum: {}, bsc: {} },
      tron: { test: anvil.url },
      evmTuning: { headMaxAgeMs: 0 },
    }),
  );
const addresses = () => {
  const chain = tronReceiveChain(false, createTronTestWallet());
  return (index: number) => deriveTronAddress(chain, index);
};
const rpc = async (method: string, params: unknown[]) => BigInt(String(await anvil.send(method, params)));

describe("sweep quotes on TRON's JSON-RPC (anvil with Nile's chain id)", () => {
  it("holds the paid USDT; the fee is the node's energy estimate × its price + 345 bandwidth; 1 TRX activation for an address without TRX", async () => {
    const at = addresses();
    const [paid, destination] = [at(0), at(1)];
    await payUsdt(anvil, paid, 7_250_000n);
    const quote = await quotes().quote({ currency: USDT, isLive: false, network: "tron", address: paid, destination });
    const energy = await rpc("eth_estimateGas", [
      {
        from: tronAddressToHex(paid),
        to: TOKEN_HEX,
        value: "0x0",
        data: abiCall("transfer(address,uint256)", tronAddressToHex(destination), 7_250_000n),
      },
    ]);
    const price = await rpc("eth_gasPrice", []);
    expect(quote).toEqual({
      held: 7_250_000n,
      decimals: 6,
      token: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf",
      feeCoinHeld: 0n,
      feeCoinDecimals: 6,
      transferFee: energy * price + 345_000n,
      topUpFee: 1_000_000n,
      gas: energy,
      gasPrice: price,
      bandwidth: 345n,
      activation: 1_000_000n,
      source: "node",
      note: null,
    });
  });

  it("takes TRON's documented figures when the node gives no estimate (a transfer the token refuses), and says so", async () => {
    const at = addresses();
    const [paid, destination] = [at(2), at(3)];
    // A token whose `transfer` always reverts: the node has no estimate, its balances still read.
    await anvil.setCode(TOKEN_HEX, (TEST_TOKENS.contracts.RevertingToken as { deployedBytecode: string }).deployedBytecode);
    await anvil.sendTransaction({ to: TOKEN_HEX, data: abiCall("mint(address,uint256)", tronAddressToHex(paid), 1_000_000n) });
    const quote = await quotes().quote({ currency: USDT, isLive: false, network: "tron", address: paid, destination });
    expect(quote).toMatchObject({ held: 1_000_000n, gas: 130_000n, gasPrice: 100n, transferFee: 130_000n * 100n + 345_000n, source: "documented" });
    expect(quote.note).toMatch(/^the node gave no energy estimate \(.+\): 130000 energy at 100 sun, TRON's documented figures$/);
  });

  it("answers 503 naming the network's node when none answers", async () => {
    const dead = new NodeSweepQuotes(
      new ChainWatchers({ timeoutMs: 2000, esplora: { BTC: {}, LTC: {} }, evm: { ethereum: {}, bsc: {} }, tron: { test: "http://127.0.0.1:9" } }),
    );
    await expect(
      dead.quote({ currency: USDT, isLive: false, network: "tron", address: addresses()(3), destination: addresses()(4) }),
    ).rejects.toMatchObject({
      code: "upstream_unavailable",
      reason: "chain_node_unavailable",
      message: expect.stringMatching(
        /^The TRON Nile testnet node \(PAYGATE_TRON_TEST_RPC_URL\) cannot be asked what the payment addresses hold \(.+\); retry once it answers$/,
      ),
    });
  });
});
