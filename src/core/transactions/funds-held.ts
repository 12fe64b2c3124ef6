// Funds held on per-payment addresses. Every payment gets a fresh address of the merchant's own key,
// so what customers paid stays there until the merchant's wallet moves it. Moving a token (USDT) off
// such an address needs the network's own coin for the fee (ETH on Ethereum, BNB on BNB Smart Chain,
// TRX on TRON), which a fresh address never holds: this view lists, per handed-out address and
// network, what it holds now and whether it holds the fee coin a token on it needs. Read-only: the
// balances come from the chain nodes (the AddressBalances port), nothing is stored.
import type { CoreDeps } from "../deps.ts";
import { errors, isDatabaseOutage } from "../errors.ts";
import { Decimal } from "../money/amounts.ts";
import { cryptoById } from "../money/currencies.ts";
import { csvRow } from "./export.ts";
import { CHAINS, coinNetwork, explorerLink, isNetworkSlug, networkName, networkOrDefault, NETWORK_SLUGS, type NetworkSlug } from "../networks.ts";
import { mapLimited } from "../limited.ts";

/** The newest handed-out addresses read by default: each costs a read of a chain node. */
export const FUNDS_HELD_DEFAULT_LIMIT = 200;
export const FUNDS_HELD_MAX_LIMIT = 1000;
/** Node reads at once: a node is not flooded, a long list still comes in reasonable time. */
const READS_AT_ONCE = 8;

export interface FundsHeldQuery {
  isLive: boolean;
  /** Only this network's addresses; absent: every network. */
  network?: string | undefined;
  /** The newest this many addresses. Default FUNDS_HELD_DEFAULT_LIMIT. */
  limit?: number | undefined;
}

/** One handed-out address and what it holds now. */
export interface HeldFunds {
  transactionId: string;
  address: string;
  /** The coin paid to it (USDT, ETH…). */
  coin: string;
  network: NetworkSlug;
  /** The network's display name in the mode. */
  networkName: string;
  /** ERC-20, BEP-20, TRC-20; null for the chain's own coin. */
  standard: string | null;
  /** What it holds of `coin`; null when the node could not say (see `error`). */
  held: Decimal | null;
  /** The coin moving funds off it costs (ETH, BNB, TRX, BTC, LTC). */
  feeCoin: string;
  /** What it holds of the fee coin; for a chain's own coin, `held` again. */
  feeCoinHeld: Decimal | null;
  /** A token is held and no fee coin: it cannot be moved until some fee coin is sent to the address. */
  needsFeeCoin: boolean;
  explorerUrl: string;
  initiatedAt: Date | null;
  /** Why the balance is unknown (no node configured, the node failed); null when read. */
  error: string | null;
}

export async function fundsHeld(deps: Pick<CoreDeps, "stores" | "balances">, merchantId: number, query: FundsHeldQuery): Promise<HeldFunds[]> {
  const network = query.network === undefined || query.network === "" ? undefined : query.network;
  if (network !== undefined && !isNetworkSlug(network)) {
    throw errors.invalidListParameters([{ field: "network", message: `must be one of ${NETWORK_SLUGS.join(", ")} (got '${network}')` }]);
  }
  const limit = query.limit ?? FUNDS_HELD_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > FUNDS_HELD_MAX_LIMIT) {
    throw errors.invalidListParameters([{ field: "limit", message: `must be a whole number from 1 to ${FUNDS_HELD_MAX_LIMIT}` }]);
  }
  const rows = await deps.stores.transactions.handedOutAddresses(merchantId, query.isLive, { ...(network ? { network } : {}), limit });
  const wanted = rows.flatMap((row) => {
    const currency = cryptoById(row.currencyId);
    if (!currency) return [];
    const on = networkOrDefault(currency.slug, row.network);
    const table = coinNetwork(currency.slug, on);
    return table && (network === undefined || on === network) ? [{ row, currency, on, table }] : [];
  });
  // One row per address and coin: a payment topped up to the same address is not counted twice.
  const seen = new Set<string>();
  const unique = wanted.filter(({ row, currency, on }) => {
    const key = `${on}:${currency.slug}:${row.address}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return mapLimited(unique, READS_AT_ONCE, async ({ row, currency, on, table }): Promise<HeldFunds> => {
    const base = {
      transactionId: row.transactionId,
      address: row.address,
      coin: currency.slug,
      network: on,
      networkName: networkName(on, query.isLive),
      standard: table.standard,
      feeCoin: CHAINS[on].feeCoin,
      explorerUrl: explorerLink(on, query.isLive, "address", row.address),
      initiatedAt: row.initiatedAt,
    };
    if (!deps.balances) return { ...base, held: null, feeCoinHeld: null, needsFeeCoin: false, error: "no chain node is configured in this process" };
    try {
      const holdings = await deps.balances.holdings(currency, query.isLive, row.address, on);
      const isToken = table.standard !== null;
      return {
        ...base,
        held: holdings.coin,
        feeCoinHeld: holdings.feeCoin,
        needsFeeCoin: isToken && holdings.coin.greaterThan(0) && holdings.feeCoin.isZero(),
        error: null,
      };
    } catch (error) {
      if (isDatabaseOutage(error)) throw error;
      return { ...base, held: null, feeCoinHeld: null, needsFeeCoin: false, error: error instanceof Error ? error.message : String(error) };
    }
  });
}

/** The columns of the CSV export, in order. */
const CSV_COLUMNS = [
  "address",
  "network",
  "coin",
  "standard",
  "held",
  "fee_coin",
  "fee_coin_held",
  "needs_fee_coin",
  "transaction_id",
  "initiated_at",
  "error",
] as const;

/** The list as CSV, rows as the transactions export writes them (csv-stringify, CRLF): amounts exact, unknown ones empty. */
export function fundsHeldCsv(rows: readonly HeldFunds[]): string {
  const lines = rows.map((r) =>
    csvRow([
      r.address,
      r.network,
      r.coin,
      r.standard ?? "",
      r.held?.toFixed() ?? "",
      r.feeCoin,
      r.feeCoinHeld?.toFixed() ?? "",
      r.needsFeeCoin ? "yes" : "no",
      r.transactionId,
      r.initiatedAt?.toISOString() ?? "",
      r.error ?? "",
    ]),
  );
  return [csvRow([...CSV_COLUMNS]), ...lines].join("");
}

/** Sums per coin and network of what the list holds, for a summary line. */
export function fundsHeldTotals(
  rows: readonly HeldFunds[],
): { coin: string; network: NetworkSlug; held: Decimal; addresses: number; needFeeCoin: number }[] {
  const totals = new Map<string, { coin: string; network: NetworkSlug; held: Decimal; addresses: number; needFeeCoin: number }>();
  for (const r of rows) {
    if (r.held === null || r.held.isZero()) continue;
    const key = `${r.coin}:${r.network}`;
    const t = totals.get(key) ?? { coin: r.coin, network: r.network, held: new Decimal(0), addresses: 0, needFeeCoin: 0 };
    t.held = t.held.plus(r.held);
    t.addresses += 1;
    if (r.needsFeeCoin) t.needFeeCoin += 1;
    totals.set(key, t);
  }
  return [...totals.values()];
}
