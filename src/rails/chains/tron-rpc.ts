// TRC-20 payments over TRON's Ethereum-compatible JSON-RPC: a java-tron FullNode's `/jsonrpc`
// (port 8545 when enabled; TronGrid serves it publicly at https://api.trongrid.io/jsonrpc and
// https://nile.trongrid.io/jsonrpc). It speaks Ethereum's protocol for what a token watcher reads
// (eth_chainId, eth_blockNumber, eth_getBlockByNumber, eth_getLogs), so the EVM client reads it
// (evm-rpc.ts: Transfer logs of the contract to the address, chunked ranges, confirmations from the
// head read first, a log reorganised away simply absent, the chain check). What differs is here:
//
// - Addresses. Payments, refunds and the token contract are TRON base58 addresses (T…); the node
//   and the TVM's logs use the same 20 bytes as 0x + 40 hex. They are converted at this boundary
//   (wallets/tron.ts), so receipts name T-addresses' payments and nothing else changes.
// - Chain check. TRON's eth_chainId is the last 4 bytes of the genesis block's id: 0x2b6653dc on
//   mainnet, 0xcd8690dc on Nile, 0x94a9059e on Shasta (documented at
//   https://developers.tron.network/reference-link/eth_chainid). A node of another network is
//   refused as an EVM node on the wrong chain is, nothing read from it.
// - Transaction ids. TRON writes a transaction id as 64 hex digits without 0x (TronScan, TronLink,
//   the HTTP API): receipts carry it so, and their keys are `txid:logIndex`.
// - TronGrid wants its API key in a TRON-PRO-API-KEY header on every request (apiKey); it never
//   appears in messages, which name the node by host.
// - Blocks come every 3 s; java-tron caps eth_getLogs at `maxBlockRange` blocks (5000 by default,
//   "exceed max block range"), above the client's 2000-block chunks.
import type { ObservedReceipt } from "../../core/ports.ts";
import { tronAddressToHex } from "../wallets/tron.ts";
import { EvmRpcClient, type EvmRpcOptions, type ExpectedChain } from "./evm-rpc.ts";
import type { Decimal } from "../../core/money/amounts.ts";
import { networkName } from "../../core/networks.ts";
import { hostOf, quote } from "../http/outbound.ts";
import { ChainNodeError } from "./errors.ts";
import type { NodePool } from "./node-pool.ts";
import { fromBaseUnits } from "./units.ts";

/** eth_chainId of TRON's networks: the last 4 bytes of each genesis block id. */
export const TRON_CHAIN_IDS = { mainnet: 0x2b6653dc, nile: 0xcd8690dc, shasta: 0x94a9059e } as const;
/** TRX is counted in sun: 10^-6 TRX. */
const TRX_DECIMALS = 6;
/** The selector of balanceOf(address). */
const BALANCE_OF = "0x70a08231";
/** The selector of transfer(address,uint256). */
const TRANSFER = "0xa9059cbb";
/** A TRC-20 transfer's bandwidth (about 345 bytes) at 1,000 sun a byte, burned when the sender has no free bandwidth left. */
const TOKEN_TRANSFER_BANDWIDTH_SUN = 345_000n;
/** Seconds between TRON blocks. */
export const TRON_BLOCK_TIME_SECONDS = 3;

export interface TronRpcOptions extends Omit<EvmRpcOptions, "blockTimeSeconds" | "headers"> {
  /** Default 3 (TRON's block time). */
  blockTimeSeconds?: number;
  /** A TronGrid API key, sent as its TRON-PRO-API-KEY header (TronGrid limits keyless requests hard). */
  apiKey?: string | undefined;
}

/** The header TronGrid reads its API key from. */
export const TRONGRID_KEY_HEADER = "TRON-PRO-API-KEY";

/** A TRC-20 token: its base58 contract address and decimals. */
export interface TronToken {
  contract: string;
  decimals: number;
}

export class TronRpcClient {
  readonly name: string;
  private readonly node: EvmRpcClient;

  constructor(options: TronRpcOptions) {
    const urls = typeof options.url === "string" ? [options.url] : options.url;
    this.name = options.name ?? `TRON JSON-RPC (${urls.map(hostOf).join(", ")})`;
    const { apiKey, ...rest } = options;
    this.node = new EvmRpcClient({
      ...rest,
      blockTimeSeconds: options.blockTimeSeconds ?? TRON_BLOCK_TIME_SECONDS,
      name: this.name,
      ...(apiKey === undefined ? {} : { headers: { [TRONGRID_KEY_HEADER]: apiKey } }),
    });
  }

  /** The nodes it reads through (failover, health). */
  get pool(): NodePool {
    return this.node.pool;
  }

  /**
   * Transfers of the TRC-20 `token` to the TRON `address` since about `since`: one receipt per
   * Transfer log, keyed `txid:logIndex`, txHash the TRON transaction id (64 hex digits, no 0x).
   * A malformed address or contract is a RangeError (nothing is asked of the node).
   */
  async tokenReceipts(token: TronToken, address: string, options: { since: Date; minedAt?: boolean }): Promise<ObservedReceipt[]> {
    const contract = tronAddressToHex(token.contract);
    const recipient = tronAddressToHex(address);
    const receipts = await this.node.tokenReceipts({ contract, decimals: token.decimals }, recipient, options);
    return receipts.map((r) => ({ ...r, key: tronTxId(r.key), txHash: r.txHash === null ? null : tronTxId(r.txHash) }));
  }

  /**
   * What `address` holds now (the node's latest state: TRON answers eth_call and eth_getBalance for
   * "latest" only): its balance of the token, and its TRX, which moving the token off it needs (fees
   * are paid in energy and bandwidth, or TRX burned for them). eth_getBalance is in sun (10^-6 TRX).
   */
  async holdings(token: TronToken, address: string): Promise<{ token: Decimal; trx: Decimal }> {
    const holder = tronAddressToHex(address);
    const contract = tronAddressToHex(token.contract);
    const data = `${BALANCE_OF}${holder.slice(2).padStart(64, "0")}`;
    const [units, sun] = await Promise.all([
      this.node.call("eth_call", [{ from: holder, to: contract, data }, "latest"]),
      this.node.call("eth_getBalance", [holder, "latest"]),
    ]);
    return {
      token: fromBaseUnits(this.quantity(units, "eth_call (balanceOf)"), token.decimals),
      trx: fromBaseUnits(this.quantity(sun, "eth_getBalance"), TRX_DECIMALS),
    };
  }

  /**
   * The TRX a transfer of `units` of the token from `from` to `to` burns when `from` has no staked
   * energy or bandwidth: the node's energy estimate (eth_estimateGas: TRON answers energy) times its
   * energy price (eth_gasPrice: sun per energy, a chain parameter), plus the transaction's bandwidth
   * at TRON's price of 1,000 sun a byte. Fails as the node does (a transfer the token would refuse,
   * such as one from an address that no longer holds the amount, has no estimate).
   */
  async tokenTransferCost(
    token: TronToken,
    from: string,
    to: string,
    units: bigint,
  ): Promise<{ energy: bigint; sunPerEnergy: bigint; trx: Decimal }> {
    const data = `${TRANSFER}${tronAddressToHex(to).slice(2).padStart(64, "0")}${units.toString(16).padStart(64, "0")}`;
    const [energy, price] = await Promise.all([
      this.node.call("eth_estimateGas", [{ from: tronAddressToHex(from), to: tronAddressToHex(token.contract), value: "0x0", data }]),
      this.node.call("eth_gasPrice", []),
    ]);
    const used = this.quantity(energy, "eth_estimateGas");
    const sunPerEnergy = this.quantity(price, "eth_gasPrice");
    return { energy: used, sunPerEnergy, trx: fromBaseUnits(used * sunPerEnergy + TOKEN_TRANSFER_BANDWIDTH_SUN, TRX_DECIMALS) };
  }

  private quantity(value: unknown, method: string): bigint {
    if (typeof value !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) {
      throw new ChainNodeError(`${this.name}: ${method} answered nonsense: ${quote(JSON.stringify(value) ?? "undefined")} is not a hex number`, {
        reason: "malformed",
      });
    }
    return BigInt(value);
  }

  /** The start-up check: the node's chain (EvmRpcClient.checkNode). */
  checkNode(): Promise<string> {
    return this.node.checkNode();
  }

  /** The head block's number. */
  blockNumber(): Promise<number> {
    return this.node.blockNumber();
  }
}

/** The chain a TRON node of a mode must be on, for TronRpcOptions.chain. */
export function tronChain(isLive: boolean, variable: string): ExpectedChain {
  return { id: isLive ? TRON_CHAIN_IDS.mainnet : TRON_CHAIN_IDS.nile, network: networkName("tron", isLive), variable };
}

/** A JSON-RPC transaction hash (or `hash:index` key) as TRON writes it: without 0x. */
function tronTxId(hash: string): string {
  return hash.replace(/^0x/, "");
}
