// The SweepRails port (issue 40; docs/settlement.md, Sweeping fresh addresses): what a per-payment
// address holds and what moving it costs, asked of the payment watcher's nodes. EVM: the token
// transfer's eth_estimateGas from the address at eth_gasPrice, and a 21,000-gas top-up. TRON: the
// node's energy estimate at its energy price plus 345 bandwidth, and TRON's documented figures
// (65,000 energy into a holder, 130,000 into an empty address, 100 sun each; 1 TRX activation) where
// the node cannot say.
import { errors, PaygateError } from "../../core/errors.ts";
import { cryptoBySlug } from "../../core/money/currencies.ts";
import { COIN_NETWORKS, networkName } from "../../core/networks.ts";
import type { SweepChainTransaction, SweepQuote, SweepQuoteRequest, SweepRails, SweepTransactionRequest } from "../../core/ports.ts";
import type { EvmRpcClient } from "../chains/evm-rpc.ts";
import type { ChainWatchers } from "../chains/index.ts";
import type { TronRpcClient } from "../chains/tron-rpc.ts";
import { toBaseUnits } from "../refunds/units.ts";
import { sweepClientOf, sweepTransaction } from "./sweep-transactions.ts";
import { tronSweepTransaction } from "./tron-sweep-transactions.ts";
import { NODE_VARIABLES } from "../chains/config.ts";
import { hostOf } from "../http/outbound.ts";

const EVM_DECIMALS = 18;
const TRX_DECIMALS = 6;
/** A plain coin transfer: the top-up. */
export const TRANSFER_GAS = 21_000n;
/** TRON's documented figures (docs/settlement.md): a USDT transfer into a holder and into an empty address, per proposal 104's price. */
export const TRON_ENERGY_INTO_HOLDER = 65_000n;
export const TRON_ENERGY_INTO_EMPTY = 130_000n;
export const TRON_SUN_PER_ENERGY = 100n;
export const TRON_TRANSFER_BANDWIDTH = 345n;
export const TRON_SUN_PER_BANDWIDTH = 1_000n;
export const TRON_ACTIVATION_SUN = 1_000_000n;

const quantity = (value: unknown, what: string): bigint => {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) throw new Error(`${what} answered ${JSON.stringify(value)}, not a quantity`);
  return BigInt(value);
};
const word = (hex: string) => hex.replace(/^0x/, "").toLowerCase().padStart(64, "0");

export class NodeSweepQuotes implements SweepRails {
  constructor(private readonly chains: Pick<ChainWatchers, "clientOf" | "nodeVariable" | "evmToken" | "tronToken" | "tronHttpOf">) {}

  async quote(request: SweepQuoteRequest): Promise<SweepQuote> {
    const entry = this.chains.clientOf(request.currency, request.isLive, request.network);
    const node = `The ${networkName(request.network, request.isLive)} node (${this.chains.nodeVariable(request.currency, request.isLive, request.network)})`;
    if (entry === undefined) throw errors.sweepNodeUnavailable(node, "no node is configured");
    try {
      if (entry.kind === "evm") return await this.evm(entry.client, request);
      if (entry.kind === "tron") return await this.tron(entry.client, request);
    } catch (error) {
      if (error instanceof PaygateError) throw error;
      throw errors.sweepNodeUnavailable(node, error instanceof Error ? error.message : String(error));
    }
    throw errors.sweepNodeUnavailable(node, `${request.network} is not an account network`);
  }

  async transaction(request: SweepTransactionRequest): Promise<SweepChainTransaction> {
    if (request.network === "tron") return this.tronTransaction(request);
    const client = sweepClientOf(this.chains, request.network, request.isLive);
    const coin = COIN_NETWORKS.find((r) => r.network === request.network);
    const currency = coin && cryptoBySlug(coin.coin);
    const variable = currency === undefined ? "" : ` (${this.chains.nodeVariable(currency, request.isLive, request.network)})`;
    const node = `The ${networkName(request.network, request.isLive)} node${variable}`;
    if (client === undefined) throw errors.sweepTransactionNodeUnavailable(node, "no node is configured");
    try {
      return await sweepTransaction(this.chains, client, request);
    } catch (error) {
      if (error instanceof PaygateError) throw error;
      throw errors.sweepTransactionNodeUnavailable(node, error instanceof Error ? error.message : String(error));
    }
  }

  /** TRON: read from the node's HTTP API, which tells what a transaction burned (tron-sweep-transactions.ts). */
  private async tronTransaction(request: SweepTransactionRequest): Promise<SweepChainTransaction> {
    const mode = request.isLive ? "live" : "test";
    const http = this.chains.tronHttpOf(request.isLive);
    const node = `The ${networkName("tron", request.isLive)} node's HTTP API (${NODE_VARIABLES.tronHttp[mode]})`;
    if (http === undefined) throw errors.sweepTransactionNodeUnavailable(node, "none is configured");
    const tokens = COIN_NETWORKS.filter((r) => r.network === "tron").flatMap((r) => {
      const currency = cryptoBySlug(r.coin);
      const token = currency && this.chains.tronToken(currency, request.isLive);
      return token === undefined ? [] : [{ coin: r.coin, ...token }];
    });
    try {
      return await tronSweepTransaction(http, tokens, request.txHash);
    } catch (error) {
      if (error instanceof PaygateError) throw error;
      // The message names the node already: what went wrong, without its name again.
      const why = error instanceof Error ? error.message.replace(`${http.name}: `, "") : String(error);
      throw errors.sweepTransactionNodeUnavailable(`${node} at ${hostOf(http.url)}`, why);
    }
  }

  private async evm(client: EvmRpcClient, request: SweepQuoteRequest): Promise<SweepQuote> {
    const token = this.chains.evmToken(request.currency, request.isLive, request.network);
    const held = await client.holdings(request.address, token);
    const units = token === undefined ? held.native : (held.token ?? 0n);
    const gasPrice = quantity(await client.call("eth_gasPrice", []), "eth_gasPrice");
    const call =
      token === undefined
        ? { from: request.address, to: request.destination, value: "0x0" }
        : { from: request.address, to: token.contract, value: "0x0", data: `0xa9059cbb${word(request.destination)}${word(units.toString(16))}` };
    // Nothing held: nothing to estimate (a transfer of 0 may not say what the real one costs).
    const gas = units === 0n ? 0n : quantity(await client.call("eth_estimateGas", [call]), "eth_estimateGas");
    return {
      held: units,
      decimals: token?.decimals ?? EVM_DECIMALS,
      token: token?.contract ?? null,
      feeCoinHeld: held.native,
      feeCoinDecimals: EVM_DECIMALS,
      transferFee: gas * gasPrice,
      topUpFee: TRANSFER_GAS * gasPrice,
      gas,
      gasPrice,
      bandwidth: null,
      activation: null,
      source: "node",
      note: null,
    };
  }

  private async tron(client: TronRpcClient, request: SweepQuoteRequest): Promise<SweepQuote> {
    const token = this.chains.tronToken(request.currency, request.isLive);
    if (token === undefined) throw new Error(`${request.currency.slug} has no TRC-20 contract on TRON`);
    const held = await client.holdings(token, request.address);
    const units = toBaseUnits(held.token.toFixed(), token.decimals);
    const trx = toBaseUnits(held.trx.toFixed(), TRX_DECIMALS);
    // An address that never held TRX is taken as not activated: the top-up's sender pays its creation.
    const activation = trx === 0n ? TRON_ACTIVATION_SUN : 0n;
    const base = {
      held: units,
      decimals: token.decimals,
      token: token.contract,
      feeCoinHeld: trx,
      feeCoinDecimals: TRX_DECIMALS,
      bandwidth: TRON_TRANSFER_BANDWIDTH,
      activation,
      topUpFee: activation,
    };
    if (units === 0n) return { ...base, transferFee: 0n, gas: 0n, gasPrice: TRON_SUN_PER_ENERGY, source: "node", note: null };
    const bandwidthSun = TRON_TRANSFER_BANDWIDTH * TRON_SUN_PER_BANDWIDTH;
    try {
      const cost = await client.tokenTransferCost(token, request.address, request.destination, units);
      return {
        ...base,
        transferFee: cost.energy * cost.sunPerEnergy + bandwidthSun,
        gas: cost.energy,
        gasPrice: cost.sunPerEnergy,
        source: "node",
        note: null,
      };
    } catch (error) {
      // The node could not estimate (no JSON-RPC estimate, a node that refuses it): TRON's documented figures.
      const into = await client.holdings(token, request.destination).catch(() => null);
      const energy = into?.token.greaterThan(0) ? TRON_ENERGY_INTO_HOLDER : TRON_ENERGY_INTO_EMPTY;
      const why = error instanceof Error ? error.message : String(error);
      return {
        ...base,
        transferFee: energy * TRON_SUN_PER_ENERGY + bandwidthSun,
        gas: energy,
        gasPrice: TRON_SUN_PER_ENERGY,
        source: "documented",
        note: `the node gave no energy estimate (${why}): ${energy} energy at ${TRON_SUN_PER_ENERGY} sun, TRON's documented figures`,
      };
    }
  }
}
