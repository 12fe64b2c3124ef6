// An EVM refund's gas fees on real nodes (issue 42): on a chain with a base fee (anvil's default
// rules) the type 2 fees, maxFeePerGas = 2 × the latest block's base fee + the node's tip, with the
// legacy gas price beside them; the tip from eth_feeHistory when the node has no
// eth_maxPriorityFeePerGas; and on a chain before London (anvil --hardfork berlin) the gas price alone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gasFees } from "../../../src/rails/refunds/evm.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../../support/anvil.ts";

let london: Anvil;
let berlin: Anvil;

beforeAll(async () => {
  [london, berlin] = await Promise.all([startAnvil({ chainId: 31_337 }), startAnvil({ chainId: 31_337, hardfork: "berlin" })]);
});
afterAll(async () => {
  await Promise.all([london?.stop(), berlin?.stop()]);
});

const nodeOf = (anvil: Anvil, refused: readonly string[] = []) => ({
  call: (method: string, params: unknown[]) =>
    refused.includes(method) ? Promise.reject(new Error(`the method ${method} does not exist/is not available`)) : anvil.send(method, params),
});

const quantityOf = async (anvil: Anvil, method: string, params: unknown[] = []) => BigInt(String(await anvil.send(method, params)));
const baseFeeOf = async (anvil: Anvil) =>
  BigInt(((await anvil.send("eth_getBlockByNumber", ["latest", false])) as { baseFeePerGas: string }).baseFeePerGas);

describe("an EVM refund's gas fees", () => {
  it("gives type 2 fees from the latest base fee and the node's tip, with the legacy gas price", async () => {
    // A few blocks with transactions in them: a base fee that moved, and tips in the fee history.
    for (let i = 0; i < 3; i++) await london.sendTransaction({ from: DEV_ACCOUNT, to: london.accounts[1] as string, value: 1n });
    const baseFee = await baseFeeOf(london);
    const tip = await quantityOf(london, "eth_maxPriorityFeePerGas");
    expect(baseFee > 0n && tip > 0n).toBe(true);
    expect(await gasFees(nodeOf(london))).toEqual({
      gasPrice: await quantityOf(london, "eth_gasPrice"),
      maxFeePerGas: 2n * baseFee + tip,
      maxPriorityFeePerGas: tip,
    });
  });

  it("takes the tip from eth_feeHistory when the node has no eth_maxPriorityFeePerGas, else the gas price above the base fee", async () => {
    const baseFee = await baseFeeOf(london);
    const history = (await london.send("eth_feeHistory", ["0x5", "latest", [50]])) as { reward: string[][] };
    const tips = history.reward.map((row) => BigInt(row[0] as string)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const median = tips[Math.floor(tips.length / 2)] as bigint;
    expect(median > 0n).toBe(true);
    expect(await gasFees(nodeOf(london, ["eth_maxPriorityFeePerGas"]))).toMatchObject({
      maxFeePerGas: 2n * baseFee + median,
      maxPriorityFeePerGas: median,
    });

    const gasPrice = await quantityOf(london, "eth_gasPrice");
    const aboveBase = gasPrice > baseFee ? gasPrice - baseFee : 0n;
    expect(await gasFees(nodeOf(london, ["eth_maxPriorityFeePerGas", "eth_feeHistory"]))).toEqual({
      gasPrice,
      maxFeePerGas: 2n * baseFee + aboveBase,
      maxPriorityFeePerGas: aboveBase,
    });
  });

  it("gives the legacy gas price alone on a chain without base fee, and nothing without a node", async () => {
    const block = (await berlin.send("eth_getBlockByNumber", ["latest", false])) as { baseFeePerGas?: string };
    expect(block.baseFeePerGas).toBeUndefined();
    expect(await gasFees(nodeOf(berlin))).toEqual({
      gasPrice: await quantityOf(berlin, "eth_gasPrice"),
      maxFeePerGas: null,
      maxPriorityFeePerGas: null,
    });
    // A node that refuses the block read counts as one without base fee: legacy.
    expect(await gasFees(nodeOf(london, ["eth_getBlockByNumber"]))).toMatchObject({ maxFeePerGas: null, maxPriorityFeePerGas: null });
    expect(await gasFees(undefined)).toEqual({ gasPrice: null, maxFeePerGas: null, maxPriorityFeePerGas: null });
  });
});
