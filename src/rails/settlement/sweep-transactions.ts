// What a node says of a sweep's or a top-up's transaction (issue 40; docs/settlement.md, Recording
// sweeps): the transaction, its receipt (status, gas used × effective gas price, the configured tokens'
// Transfer logs) and its block's time. EVM networks; the core decides what the facts mean.
import { cryptoBySlug, type CryptoCurrency } from "../../core/money/currencies.ts";
import { COIN_NETWORKS, type NetworkSlug } from "../../core/networks.ts";
import type { SweepChainTransaction, SweepTokenTransfer, SweepTransactionRequest } from "../../core/ports.ts";
import { type EvmRpcClient, TRANSFER_TOPIC } from "../chains/evm-rpc.ts";
import type { ChainWatchers } from "../chains/index.ts";
import { toChecksumAddress } from "../wallets/addresses.ts";

const EVM_DECIMALS = 18;

type Chains = Pick<ChainWatchers, "clientOf" | "evmToken">;

interface RpcTransaction {
  from: string;
  to: string | null;
  value: string;
  input: string;
  blockHash: string | null;
}
interface RpcReceipt {
  status: string;
  gasUsed: string;
  effectiveGasPrice: string;
  blockNumber: string;
  blockHash: string;
  logs: { address: string; topics: string[]; data: string }[];
}

const quantity = (value: unknown, what: string): bigint => {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) throw new Error(`${what} answered ${JSON.stringify(value)}, not a quantity`);
  return BigInt(value);
};
const topicAddress = (topic: string | undefined) => toChecksumAddress(`0x${(topic ?? "").slice(-40)}`);

/** The coins paid on the network (their clients are the network's node) and their token contracts in the mode. */
function coinsOf(
  chains: Chains,
  network: NetworkSlug,
  isLive: boolean,
): { currency: CryptoCurrency; token: { contract: string; decimals: number } | undefined }[] {
  return COIN_NETWORKS.filter((r) => r.network === network).flatMap((r) => {
    const currency = cryptoBySlug(r.coin);
    return currency === undefined ? [] : [{ currency, token: chains.evmToken(currency, isLive, network) }];
  });
}

/** The network's EVM client, or undefined when no node is configured (the caller names the variable). */
export function sweepClientOf(chains: Chains, network: NetworkSlug, isLive: boolean): EvmRpcClient | undefined {
  for (const { currency } of coinsOf(chains, network, isLive)) {
    const entry = chains.clientOf(currency, isLive, network);
    if (entry?.kind === "evm") return entry.client;
  }
  return undefined;
}

export async function sweepTransaction(chains: Chains, client: EvmRpcClient, request: SweepTransactionRequest): Promise<SweepChainTransaction> {
  const tx = (await client.call("eth_getTransactionByHash", [request.txHash])) as RpcTransaction | null;
  if (tx === null) return { state: "unknown" };
  const from = toChecksumAddress(tx.from);
  const receipt = (await client.call("eth_getTransactionReceipt", [request.txHash])) as RpcReceipt | null;
  if (receipt === null || tx.blockHash === null) return { state: "pending", from };
  const tokens = new Map(
    coinsOf(chains, request.network, request.isLive).flatMap(({ currency, token }) =>
      token === undefined ? [] : [[token.contract.toLowerCase(), { coin: currency.slug, ...token }] as const],
    ),
  );
  const transfers: SweepTokenTransfer[] = receipt.logs.flatMap((log) => {
    const token = tokens.get(log.address.toLowerCase());
    if (token === undefined || log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC || log.topics.length !== 3) return [];
    return [
      {
        coin: token.coin,
        token: toChecksumAddress(token.contract),
        decimals: token.decimals,
        from: topicAddress(log.topics[1]),
        to: topicAddress(log.topics[2]),
        units: log.data === "0x" ? 0n : quantity(log.data.replace(/^0x0*(?=.)/, "0x"), "a Transfer log's amount"),
      },
    ];
  });
  const block = (await client.call("eth_getBlockByHash", [receipt.blockHash, false])) as { timestamp: string } | null;
  if (block === null) return { state: "pending", from };
  return {
    state: "mined",
    succeeded: receipt.status === "0x1",
    from,
    to: tx.to === null ? null : toChecksumAddress(tx.to),
    value: quantity(tx.value, "the transaction's value"),
    plain: tx.input === "0x" || tx.input === "",
    transfers,
    fee: quantity(receipt.gasUsed, "gasUsed") * quantity(receipt.effectiveGasPrice, "effectiveGasPrice"),
    feeDecimals: EVM_DECIMALS,
    blockNumber: quantity(receipt.blockNumber, "blockNumber"),
    blockHash: receipt.blockHash,
    minedAt: new Date(Number(quantity(block.timestamp, "the block's timestamp")) * 1000),
  };
}
