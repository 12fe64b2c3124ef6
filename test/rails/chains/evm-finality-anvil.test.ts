// Finality on a real EVM node (anvil, whose `finalized` block is the head less 64): with the finalized
// tag on, each receipt says whether the node's finalized block covers it; without it, nothing is said
// (depth decides, lifecycle.ts). A payment taken back by evm_revert after it succeeded is gone from
// the next read, which the core records as a reversal. No database: runs once per CI run (vitest.config.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvmRpcClient } from "../../../src/rails/chains/evm-rpc.ts";
import { startAnvil, type Anvil } from "../../support/anvil.ts";

let anvil: Anvil;
beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31_337 });
});
afterAll(() => anvil?.stop());

const client = (finalizedTag: boolean) =>
  new EvmRpcClient({ url: anvil.url, timeoutMs: 5000, blockTimeSeconds: 1, headMaxAgeMs: 0, finalizedTag, minWindowBlocks: 100 });

let n = 0;
const freshAddress = () => `0x${(0xabc000 + ++n).toString(16).padStart(40, "0")}`;
const SINCE = () => new Date(Date.now() - 60_000);

describe("the finalized tag (anvil)", () => {
  it("marks a receipt finalized only once the node's finalized block covers it", async () => {
    const to = freshAddress();
    const since = SINCE();
    const tx = await anvil.sendTransaction({ to, value: 10n ** 16n });
    const tagged = client(true);
    const read = async (c: EvmRpcClient) => {
      c.beginPass([{ address: to, since, receipts: [{ key: tx }] }]);
      return (await c.nativeReceipts(to, { since, requiredConfirmations: 1 })).map((r) => [r.txHash, r.finalized]);
    };
    expect(await read(tagged)).toEqual([[tx, false]]);
    await anvil.mine(63);
    expect(await read(tagged)).toEqual([[tx, false]]);
    await anvil.mine(1);
    expect(await read(tagged)).toEqual([[tx, true]]);
    // Without the tag the client says nothing of finality.
    expect(await read(client(false))).toEqual([[tx, undefined]]);
  });

  it("answers the finalized block number as the node has it", async () => {
    const head = await anvil.blockNumber();
    expect(await client(true).finalizedBlock()).toBe(Math.max(0, head - 64));
  });

  it("no longer finds a payment that evm_revert took away after it was counted", async () => {
    const to = freshAddress();
    const since = SINCE();
    const snapshot = await anvil.snapshot();
    const tx = await anvil.sendTransaction({ to, value: 10n ** 16n });
    await anvil.mine(5);
    const evm = client(true);
    evm.beginPass([{ address: to, since, receipts: [] }]);
    expect((await evm.nativeReceipts(to, { since, requiredConfirmations: 3 })).map((r) => [r.txHash, r.confirmations])).toEqual([[tx, 6]]);
    await anvil.revert(snapshot);
    await anvil.mine(7);
    evm.beginPass([{ address: to, since, receipts: [{ key: tx }] }]);
    expect(await evm.nativeReceipts(to, { since, requiredConfirmations: 3 })).toEqual([]);
  });
});
