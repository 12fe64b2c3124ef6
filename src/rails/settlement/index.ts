// The ConsolidationRails port (issue 40; docs/settlement.md, Consolidating BTC and LTC): the unsigned
// PSBT that spends the merchant's settled outputs to its own address, built as a refund's is
// (src/rails/refunds/psbt.ts: the same inputs, key origins and fee). An own Core node is asked first
// which outputs are still unspent (gettxout, mempool included): one the merchant spent elsewhere is
// left out, and a node that cannot answer refuses the whole request (503 naming it), as building on
// a guess would give the merchant a PSBT its node rejects.
import type { HDKey } from "@scure/bip32";
import { errors } from "../../core/errors.ts";
import { keyOriginMissingText, parseStoredKeyOrigin } from "../../core/merchants/key-origin.ts";
import { cryptoBySlug } from "../../core/money/currencies.ts";
import { isNetworkSlug } from "../../core/networks.ts";
import type { ConsolidationBuildRequest, ConsolidationBuilt, ConsolidationRails } from "../../core/ports.ts";
import type { ChainClient, ChainWatchers } from "../chains/index.ts";
import { readExtendedKey } from "../wallets/extended-keys.ts";
import { buildCoinNetworkTable, rowKey, type CurrencyNetworks, type NetworkOptions, type UtxoNetwork } from "../wallets/networks.ts";
import { OUTPOINT, rawTransaction, type WalletKeyLookup } from "../refunds/index.ts";
import type { ConsolidatedOutput } from "../refunds/psbt.ts";
import { fromBaseUnits, toBaseUnits } from "../refunds/units.ts";

const UTXO_DECIMALS = 8;

export interface ConsolidationRailsOptions extends NetworkOptions {
  wallets: WalletKeyLookup;
  /** The payment watcher's nodes; absent: no node is asked, nothing is left out. */
  chains?: Pick<ChainWatchers, "clientOf" | "nodeVariable">;
}

export class ConsolidationPsbts implements ConsolidationRails {
  private readonly networks: ReadonlyMap<string, CurrencyNetworks>;

  constructor(private readonly options: ConsolidationRailsOptions) {
    this.networks = buildCoinNetworkTable(options);
  }

  async build(request: ConsolidationBuildRequest): Promise<ConsolidationBuilt> {
    const currency = cryptoBySlug(request.coin);
    const network = request.network;
    const entry = currency && isNetworkSlug(network) ? this.networks.get(rowKey(currency.slug, network)) : undefined;
    if (currency === undefined || entry === undefined || !isNetworkSlug(network))
      throw new Error(`no consolidation rails for ${request.coin} on ${network}`);
    const chain = (request.isLive ? entry.live : entry.test) as UtxoNetwork;
    const client = this.options.chains?.clientOf(currency, request.isLive, network);
    const mode = request.isLive ? "live" : "test";
    const node = () =>
      `The ${currency.slug} ${mode} node (${this.options.chains?.nodeVariable(currency, request.isLive, network) ?? "not configured"})`;
    const accountPath = (request.isLive ? entry.liveAccountPath : entry.testAccountPath).replace(/^m\//, "");

    const keys = new Map<number, { account: HDKey; origin: ReturnType<typeof parseStoredKeyOrigin>; prefix: string }>();
    const outputs: ConsolidatedOutput[] = [];
    const spent: string[] = [];
    for (const spend of request.outputs) {
      const outpoint = OUTPOINT.exec(spend.outpoint);
      if (!outpoint) continue;
      const [, txid = "", vout = "0"] = outpoint;
      let key = keys.get(spend.walletId);
      if (key === undefined) {
        const wallet = await this.options.wallets(spend.walletId);
        const read = wallet === null ? null : readExtendedKey(wallet.extendedPublicKey);
        if (wallet === null || read === null || read.kind !== "public") continue;
        key = { account: read.node as HDKey, origin: parseStoredKeyOrigin(wallet.keyOrigin), prefix: read.format.prefix };
        keys.set(spend.walletId, key);
      }
      if (!(await this.unspent(client, txid, Number(vout), node))) continue;
      outputs.push({
        txid,
        vout: Number(vout),
        value: toBaseUnits(spend.amount, UTXO_DECIMALS),
        rawTransaction: await rawTransaction(client, txid),
        account: key.account,
        keyOrigin: key.origin,
        derivationIndex: spend.derivationIndex,
      });
      spent.push(spend.outpoint);
    }
    if (outputs.length === 0) return { ok: false, problem: "all_spent" };
    // @scure/btc-signer loads with the first refund or consolidation, not with every start (docs/operations.md, Memory).
    const { buildConsolidationPsbt } = await import("../refunds/psbt.ts");
    const built = buildConsolidationPsbt({ network: chain, outputs, destination: request.destination, feeRate: request.feeRate });
    const coin = (units: bigint) => fromBaseUnits(units, UTXO_DECIMALS);
    if (!built.ok) return { ok: false, problem: "dust", total: coin(built.total), networkFee: coin(built.fee), dust: coin(built.dust) };
    const missing = [...keys.values()].find((k) => k.origin === null);
    return {
      ok: true,
      psbt: built.psbt,
      txHash: built.txid,
      spent,
      total: coin(built.total),
      networkFee: coin(built.fee),
      amountToReceive: coin(built.amount),
      keyOriginMissing: missing === undefined ? null : keyOriginMissingText(currency.slug, mode, missing.prefix, accountPath),
    };
  }

  /** Whether an own node still holds the output unspent (mempool spends count); true without an own node to ask. */
  private async unspent(client: ChainClient | undefined, txid: string, vout: number, node: () => string): Promise<boolean> {
    if (client?.kind !== "core") return true;
    try {
      const out = await client.client.call("gettxout", [txid, vout, true]);
      return out !== null;
    } catch (error) {
      throw errors.consolidationNodeUnavailable(node(), error instanceof Error ? error.message : String(error));
    }
  }
}
