// A refund of an EVM coin or token as the unsigned transaction the merchant signs with the key of
// the address the customer paid (docs/refunds.md, Paying a refund): a native transfer, or the
// token's transfer(to, amount) with no value. The chain id is the mode's (core/networks.ts, or the
// local chain that replaces it in test mode). Gas: eth_estimateGas from the configured node when it
// answers, else the usual 21,000 (a transfer) or 65,000 (a token transfer); its price: eth_gasPrice
// (legacy, type 0), and on a chain whose blocks have a base fee (EIP-1559) a type 2 transaction's fees
// too: maxPriorityFeePerGas from eth_maxPriorityFeePerGas (else eth_feeHistory's median tip), and
// maxFeePerGas = 2 × the latest base fee + that tip, which outlasts six full blocks of base fee rises.
// The fee kept for gas is the most it can cost (gas × the higher of maxFeePerGas and gasPrice), so the
// transaction signs with either set of fees, its balance covering value + gas × price as nodes check.
// A native refund pays its gas out of the paid address's balance: the customer gets less when the fee
// is deducted or the refund spends everything. A token refund's gas is in the chain's coin, which the
// paid address does not hold: `gasNeeded` says how much to send it first. A payment made to a deposit
// forwarder is refunded from the merchant's settlement address (the only place a forwarder sends to),
// which holds more than this payment: its gas is paid beside the amount, never out of it.
import { errors } from "../../core/errors.ts";
import { Decimal } from "../../core/money/amounts.ts";
import type { CryptoCurrency } from "../../core/money/currencies.ts";
import { CHAINS, type NetworkSlug } from "../../core/networks.ts";
import type { PaymentRails, RefundInstructions, RefundSpendRequest } from "../../core/ports.ts";
import type { EvmRpcClient } from "../chains/evm-rpc.ts";
import { toChecksumAddress } from "../wallets/addresses.ts";
import { EVM_NATIVE_DECIMALS, type EvmNetwork } from "../wallets/networks.ts";
import { fromBaseUnits, toBaseUnits } from "./units.ts";

/** Gas of a plain transfer (the protocol's fixed cost). */
export const NATIVE_TRANSFER_GAS = 21_000n;
/** Gas a token transfer usually takes (USDT's to a new holder is about 63,000). */
export const TOKEN_TRANSFER_GAS = 65_000n;
/** `transfer(address,uint256)`. */
const TRANSFER_SELECTOR = "a9059cbb";

export interface EvmRefundInput {
  currency: CryptoCurrency;
  network: NetworkSlug;
  chain: EvmNetwork;
  request: RefundSpendRequest;
  rails: PaymentRails;
  /** The chain's node, when configured: gas estimate and price. */
  node: Pick<EvmRpcClient, "call"> | undefined;
}

export async function evmRefund({ currency, network, chain, request, rails, node }: EvmRefundInput): Promise<RefundInstructions> {
  const fromSettlement = request.settlementAddress !== undefined && request.settlementAddress !== null;
  const from = toChecksumAddress(request.settlementAddress ?? request.paymentAddress);
  const destination = toChecksumAddress(request.destination);
  const token = chain.token;
  const decimals = token?.decimals ?? EVM_NATIVE_DECIMALS;
  const amount = toBaseUnits(request.amount, decimals);
  const to = token ? toChecksumAddress(token.contract) : destination;
  const data = (units: bigint) => (token ? `0x${TRANSFER_SELECTOR}${word(destination.slice(2))}${word(units.toString(16))}` : "0x");
  const value = (units: bigint) => (token ? 0n : units);

  const gas = (await estimateGas(node, { from, to, value: value(amount), data: data(amount) })) ?? (token ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS);
  const fees = await gasFees(node);
  const highest = fees.maxFeePerGas !== null && (fees.gasPrice === null || fees.maxFeePerGas > fees.gasPrice) ? fees.maxFeePerGas : fees.gasPrice;
  const fee = highest === null ? null : gas * highest;
  const feeCoin = CHAINS[network].feeCoin;

  let toCustomer = amount;
  if (!token && fee !== null) {
    const received = request.receipts.reduce((sum, r) => sum + toBaseUnits(r.amount, decimals), 0n);
    // The address holds what the payment brought: a refund of all of it leaves nothing for gas but the refund itself.
    if (request.deductNetworkFee) toCustomer = amount - fee;
    else if (!fromSettlement && amount + fee > received) toCustomer = received - fee;
    if (toCustomer <= 0n) {
      const coin = (units: bigint) => `${fromBaseUnits(units, decimals)} ${currency.slug}`;
      throw errors.refundBelowDust(coin(toCustomer), coin(fee), coin(0n), true);
    }
  }
  const customerAmount = fromBaseUnits(toCustomer, decimals);
  return {
    uri: rails.paymentUri(currency, request.isLive, destination, new Decimal(customerAmount), network),
    psbt: null,
    networkFee: fee === null ? null : fromBaseUnits(fee, EVM_NATIVE_DECIMALS),
    amountToCustomer: customerAmount,
    evmTransaction: {
      from,
      to,
      value: value(toCustomer).toString(),
      data: data(toCustomer),
      chainId: chain.chainId,
      gas: gas.toString(),
      type: fees.maxFeePerGas === null ? 0 : 2,
      gasPrice: fees.gasPrice?.toString() ?? null,
      maxFeePerGas: fees.maxFeePerGas?.toString() ?? null,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas?.toString() ?? null,
    },
    gasNeeded: token && fee !== null ? { coin: feeCoin, amount: fromBaseUnits(fee, EVM_NATIVE_DECIMALS) } : null,
    keyOriginMissing: null,
  };
}

/** 32-byte ABI word of hex digits. */
function word(hexDigits: string): string {
  return hexDigits.toLowerCase().padStart(64, "0");
}

/** eth_estimateGas of the transfer from the paid address; null when the node is absent or cannot tell. */
async function estimateGas(node: EvmRefundInput["node"], tx: { from: string; to: string; value: bigint; data: string }): Promise<bigint | null> {
  if (node === undefined) return null;
  try {
    const answer = await node.call("eth_estimateGas", [{ from: tx.from, to: tx.to, value: `0x${tx.value.toString(16)}`, data: tx.data }]);
    return typeof answer === "string" && /^0x[0-9a-f]+$/i.test(answer) ? BigInt(answer) : null;
  } catch {
    return null;
  }
}

/** A hex quantity as bigint; null for anything else. */
function hexQuantity(answer: unknown): bigint | null {
  return typeof answer === "string" && /^0x[0-9a-f]+$/i.test(answer) ? BigInt(answer) : null;
}

/** A node's answer; null when the node is absent or refuses (an older node lacks the method). */
async function answerOf(node: EvmRefundInput["node"], method: string, params: unknown[] = []): Promise<unknown> {
  if (node === undefined) return null;
  try {
    return await node.call(method, params);
  } catch {
    return null;
  }
}

async function quantity(node: EvmRefundInput["node"], method: string): Promise<bigint | null> {
  return hexQuantity(await answerOf(node, method));
}

/** Wei per gas: the legacy price, and EIP-1559's fees when the latest block has a base fee (else null). */
export interface GasFees {
  gasPrice: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
}

export async function gasFees(node: EvmRefundInput["node"]): Promise<GasFees> {
  const gasPrice = await quantity(node, "eth_gasPrice");
  const block = await answerOf(node, "eth_getBlockByNumber", ["latest", false]);
  // A chain before London (or a node that hides it) has no base fee: legacy transactions only.
  const baseFee = typeof block === "object" && block !== null ? hexQuantity((block as { baseFeePerGas?: unknown }).baseFeePerGas) : null;
  if (baseFee === null) return { gasPrice, maxFeePerGas: null, maxPriorityFeePerGas: null };
  const tip =
    (await quantity(node, "eth_maxPriorityFeePerGas")) ??
    (await medianTip(node)) ??
    (gasPrice !== null && gasPrice > baseFee ? gasPrice - baseFee : 0n);
  return { gasPrice, maxFeePerGas: 2n * baseFee + tip, maxPriorityFeePerGas: tip };
}

/** The median of the last blocks' median tips (eth_feeHistory, 50th percentile); null when the node does not tell. */
async function medianTip(node: EvmRefundInput["node"]): Promise<bigint | null> {
  const history = await answerOf(node, "eth_feeHistory", ["0x5", "latest", [50]]);
  const rewards = typeof history === "object" && history !== null ? (history as { reward?: unknown }).reward : undefined;
  if (!Array.isArray(rewards)) return null;
  const tips = rewards
    .map((row: unknown) => (Array.isArray(row) ? hexQuantity(row[0]) : null))
    .filter((tip): tip is bigint => tip !== null)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return tips[Math.floor(tips.length / 2)] ?? null;
}
