// The sweep tool's EVM side (docs/settlement.md, Sweeping fresh addresses): for one address of the
// plan, a top-up from the fee wallet when the address lacks the coin for its transfer, the transfer of
// the token (or of the coin, less its fee) to the destination, and the coin left over after it. Every
// transaction is an EIP-1559 one signed here and sent raw to the merchant's own RPC URL; each is waited
// for. Fees are exact: max fee = priority fee, so a transaction costs gas used × that price.
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { signEip1559 } from "../../src/rails/evm/signing.ts";
import type { SweepAddressView } from "../../src/core/settlement/sweep-view.ts";

const RECEIPT_POLL_MS = 200;
const RECEIPT_WAIT_MS = 120_000;
/** Over eth_estimateGas: the unused part comes back to the address and is swept on with the coin left over. */
const GAS_MARGIN_PERCENT = 120n;

export class RpcError extends Error {
  override readonly name = "RpcError";
}

export class EvmRpc {
  private id = 0;
  constructor(private readonly url: string) {}

  async call(method: string, params: unknown[]): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++this.id, method, params }),
      });
    } catch (error) {
      throw new RpcError(`the RPC URL cannot be reached (${error instanceof Error ? error.message : String(error)})`);
    }
    const body = (await response.json().catch(() => null)) as { result?: unknown; error?: { message?: string } } | null;
    if (body === null) throw new RpcError(`${method}: the RPC URL answered HTTP ${response.status} without JSON`);
    if (body.error) throw new RpcError(`${method}: ${body.error.message ?? JSON.stringify(body.error)}`);
    return body.result;
  }

  async quantity(method: string, params: unknown[]): Promise<bigint> {
    const value = await this.call(method, params);
    if (typeof value !== "string" || !/^0x[0-9a-fA-F]+$/.test(value)) throw new RpcError(`${method} answered ${JSON.stringify(value)}`);
    return BigInt(value);
  }
}

const word = (hex: string) => hex.replace(/^0x/, "").toLowerCase().padStart(64, "0");
const hex = (n: bigint) => `0x${n.toString(16)}`;
export const transferData = (to: string, units: bigint) => `0xa9059cbb${word(to)}${word(units.toString(16))}`;
export const balanceOfData = (holder: string) => `0x70a08231${word(holder)}`;

export interface SentTransaction {
  tx_hash: string;
  gas_used: string;
  /** Wei paid for it. */
  fee_units: string;
  /** What it moved, in base units of what it moved. */
  amount_units: string;
}

export interface AddressOutcome {
  address: string;
  coin: string;
  state: "swept" | "already_empty" | "skipped";
  reason: string | null;
  top_up: SentTransaction | null;
  transfer: SentTransaction | null;
  coin_left_over: SentTransaction | null;
}

/** An address's outcome before anything is sent: swept, unless a step says otherwise. */
export function outcomeOf(entry: Pick<SweepAddressView, "address" | "coin">): AddressOutcome {
  return { address: entry.address, coin: entry.coin, state: "swept", reason: null, top_up: null, transfer: null, coin_left_over: null };
}

interface Chain {
  rpc: EvmRpc;
  chainId: bigint;
  /** Wei per gas, as both the max fee and the priority fee: what every transaction pays, exactly. */
  price: bigint;
}

export async function chainOf(rpc: EvmRpc): Promise<Chain> {
  const chainId = await rpc.quantity("eth_chainId", []);
  const block = (await rpc.call("eth_getBlockByNumber", ["latest", false])) as { baseFeePerGas?: string } | null;
  const baseFee = block?.baseFeePerGas === undefined ? 0n : BigInt(block.baseFeePerGas);
  const priority = await rpc.quantity("eth_maxPriorityFeePerGas", []).catch(() => 1_000_000_000n);
  return { rpc, chainId, price: baseFee * 2n + priority };
}

export async function holdings(rpc: EvmRpc, address: string, token: string | null): Promise<{ units: bigint; coin: bigint }> {
  const coin = await rpc.quantity("eth_getBalance", [address, "latest"]);
  if (token === null) return { units: coin, coin };
  const units = BigInt((await rpc.call("eth_call", [{ to: token, data: balanceOfData(address) }, "latest"])) as string);
  return { units, coin };
}

async function send(
  chain: Chain,
  from: { address: string; privateKey: Uint8Array },
  tx: { to: string; value: bigint; data: string; gas: bigint },
): Promise<SentTransaction> {
  const nonce = await chain.rpc.quantity("eth_getTransactionCount", [from.address, "pending"]);
  const raw = signEip1559(
    {
      chainId: chain.chainId,
      nonce,
      maxPriorityFeePerGas: chain.price,
      maxFeePerGas: chain.price,
      gas: tx.gas,
      to: tx.to,
      value: tx.value,
      data: tx.data,
    },
    from.privateKey,
  );
  const hash = `0x${bytesToHex(keccak_256(hexToBytes(raw.slice(2))))}`;
  await chain.rpc.call("eth_sendRawTransaction", [raw]);
  const until = Date.now() + RECEIPT_WAIT_MS;
  for (;;) {
    const receipt = (await chain.rpc.call("eth_getTransactionReceipt", [hash])) as {
      status?: string;
      gasUsed: string;
      effectiveGasPrice?: string;
    } | null;
    if (receipt !== null) {
      if (receipt.status !== "0x1") throw new RpcError(`transaction ${hash} from ${from.address} reverted`);
      const gasUsed = BigInt(receipt.gasUsed);
      const price = receipt.effectiveGasPrice === undefined ? chain.price : BigInt(receipt.effectiveGasPrice);
      return { tx_hash: hash, gas_used: gasUsed.toString(), fee_units: (gasUsed * price).toString(), amount_units: tx.value.toString() };
    }
    if (Date.now() > until)
      throw new RpcError(`transaction ${hash} from ${from.address} was not mined within ${RECEIPT_WAIT_MS / 1000} s; run the tool again later`);
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
  }
}

/** Sweeps one address of the plan; an address that holds nothing now is left (a re-run is safe). */
export async function sweepAddress(
  chain: Chain,
  entry: SweepAddressView,
  key: { address: string; privateKey: Uint8Array },
  feeWallet: { address: string; privateKey: Uint8Array },
  destination: string,
): Promise<AddressOutcome> {
  const outcome = outcomeOf(entry);
  const now = await holdings(chain.rpc, entry.address, entry.token_contract);
  if (now.units === 0n) return { ...outcome, state: "already_empty", reason: `holds no ${entry.coin} now` };
  if (entry.token_contract === null) {
    const gas = await chain.rpc.quantity("eth_estimateGas", [{ from: entry.address, to: destination, value: hex(1n) }]);
    const value = now.coin - gas * chain.price;
    if (value <= 0n) return { ...outcome, state: "skipped", reason: `holds less than the fee of moving it (${gas * chain.price} wei)` };
    outcome.transfer = await send(chain, key, { to: destination, value, data: "0x", gas });
    return outcome;
  }
  const data = transferData(destination, now.units);
  const estimate = await chain.rpc.quantity("eth_estimateGas", [{ from: entry.address, to: entry.token_contract, value: "0x0", data }]);
  const gas = (estimate * GAS_MARGIN_PERCENT + 99n) / 100n;
  const needed = gas * chain.price;
  if (now.coin < needed) {
    const topUp = await send(chain, feeWallet, { to: entry.address, value: needed - now.coin, data: "0x", gas: 21_000n });
    outcome.top_up = topUp;
  }
  const transfer = await send(chain, key, { to: entry.token_contract, value: 0n, data, gas });
  outcome.transfer = { ...transfer, amount_units: now.units.toString() };
  // What the margin left, and any coin the address held: on to the destination when it pays its own fee.
  const left = await chain.rpc.quantity("eth_getBalance", [entry.address, "latest"]);
  const coinGas =
    left > 0n ? await chain.rpc.quantity("eth_estimateGas", [{ from: entry.address, to: destination, value: hex(1n) }]).catch(() => null) : null;
  if (coinGas !== null && left > coinGas * chain.price) {
    outcome.coin_left_over = await send(chain, key, { to: destination, value: left - coinGas * chain.price, data: "0x", gas: coinGas });
  }
  return outcome;
}
