// What a TRON node says of a sweep's or a top-up's transaction (issue 40; docs/settlement.md, Recording
// sweeps), from its HTTP API: the transaction (`gettransactionbyid`: its contract, the owner, a plain
// TRX transfer's recipient and amount), its info (`gettransactioninfobyid`: the TRX it burned in sun,
// its result, the TRC-20 Transfer logs, its block and time) and its block's id (`getblockbynum`).
// TRON's JSON-RPC cannot stand in: its receipt prices all the energy used, staked or not, and leaves
// out the bandwidth and activation burned. The core decides what the facts mean, as on EVM networks.
import type { SweepChainTransaction, SweepTokenTransfer } from "../../core/ports.ts";
import { ChainNodeError } from "../chains/errors.ts";
import { TRANSFER_TOPIC } from "../chains/evm-rpc.ts";
import type { TronHttpClient } from "../chains/tron-http.ts";
import type { TronToken } from "../chains/tron-rpc.ts";
import { checkTronAddress, tronAddressFromHex } from "../wallets/tron.ts";

const TRX_DECIMALS = 6;

/** A configured TRC-20 token of the network in the mode. */
export interface TronSweepToken extends TronToken {
  coin: string;
}

interface Contract {
  type?: unknown;
  parameter?: { value?: Record<string, unknown> };
}

/** A log's or an answer's address: base58 as asked (`visible`), or the 20 or 21 bytes in hex that some nodes give for logs. */
function base58Of(value: unknown, node: string, what: string): string {
  if (typeof value === "string") {
    if (checkTronAddress(value).ok) return value;
    const hex = value.replace(/^0x/, "").toLowerCase();
    if (/^[0-9a-f]{40}$/.test(hex)) return tronAddressFromHex(`41${hex}`);
    if (/^41[0-9a-f]{40}$/.test(hex)) return tronAddressFromHex(hex);
  }
  throw malformed(node, `${what} is ${JSON.stringify(value)}, not a TRON address`);
}

const malformed = (node: string, message: string) => new ChainNodeError(`${node}: ${message}`, { reason: "malformed" });

function integer(value: unknown, node: string, what: string): bigint {
  if (value === undefined) return 0n; // the API leaves out a zero (protobuf's default)
  if ((typeof value === "number" && Number.isSafeInteger(value) && value >= 0) || (typeof value === "string" && /^\d{1,30}$/.test(value)))
    return BigInt(value);
  throw malformed(node, `${what} is ${JSON.stringify(value)}, not a whole number`);
}

/** The transaction `txId` (64 hex digits, no 0x) as the node tells it. */
export async function tronSweepTransaction(http: TronHttpClient, tokens: readonly TronSweepToken[], txId: string): Promise<SweepChainTransaction> {
  const node = http.name;
  const [tx, info] = await Promise.all([http.post("gettransactionbyid", { value: txId }), http.post("gettransactioninfobyid", { value: txId })]);
  const contract = (tx.raw_data as { contract?: Contract[] } | undefined)?.contract?.[0];
  if (contract === undefined) return { state: "unknown" };
  const value = contract.parameter?.value ?? {};
  const from = base58Of(value.owner_address, node, "the transaction's owner_address");
  if (info.id === undefined || info.blockNumber === undefined) return { state: "pending", from };
  const plain = contract.type === "TransferContract";
  const to = plain
    ? base58Of(value.to_address, node, "the transfer's to_address")
    : value.contract_address === undefined
      ? null
      : base58Of(value.contract_address, node, "contract_address");
  const byContract = new Map(tokens.map((t) => [t.contract, t]));
  const logs = Array.isArray(info.log) ? (info.log as { address?: unknown; topics?: unknown; data?: unknown }[]) : [];
  const transfers: SweepTokenTransfer[] = logs.flatMap((log) => {
    const token = byContract.get(base58Of(log.address, node, "a log's address"));
    const topics = Array.isArray(log.topics) ? log.topics.map((t) => String(t).replace(/^0x/, "").toLowerCase()) : [];
    if (token === undefined || `0x${topics[0]}` !== TRANSFER_TOPIC || topics.length !== 3) return [];
    const data = String(log.data ?? "").replace(/^0x/, "");
    if (!/^[0-9a-fA-F]{0,64}$/.test(data)) throw malformed(node, `a Transfer log's data is ${JSON.stringify(log.data)}`);
    return [
      {
        coin: token.coin,
        token: token.contract,
        decimals: token.decimals,
        from: tronAddressFromHex(`41${(topics[1] ?? "").slice(-40)}`),
        to: tronAddressFromHex(`41${(topics[2] ?? "").slice(-40)}`),
        units: data === "" ? 0n : BigInt(`0x${data}`),
      },
    ];
  });
  const blockNumber = integer(info.blockNumber, node, "blockNumber");
  const block = await http.post("getblockbynum", { num: Number(blockNumber) });
  if (typeof block.blockID !== "string" || !/^[0-9a-f]{64}$/i.test(block.blockID)) return { state: "pending", from };
  const receipt = (info.receipt ?? {}) as { result?: unknown };
  const contractRet = (tx.ret as { contractRet?: unknown }[] | undefined)?.[0]?.contractRet;
  return {
    state: "mined",
    // A failed contract says so in the info's result and its receipt's; a plain transfer has no receipt result.
    succeeded:
      info.result !== "FAILED" &&
      (receipt.result === undefined || receipt.result === "SUCCESS") &&
      (contractRet === undefined || contractRet === "SUCCESS"),
    from,
    to,
    value: plain ? integer(value.amount, node, "the transfer's amount") : integer(value.call_value, node, "call_value"),
    plain,
    transfers,
    fee: integer(info.fee, node, "the fee"),
    feeDecimals: TRX_DECIMALS,
    blockNumber,
    blockHash: block.blockID.toLowerCase(),
    minedAt: new Date(Number(integer(info.blockTimeStamp, node, "blockTimeStamp"))),
  };
}
