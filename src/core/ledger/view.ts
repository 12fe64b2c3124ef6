// The ledger as REST, the CLI and the CSV show it (issue 40, goal 5; docs/ledger.md): an entry, the
// totals per coin and network, and the export's columns. Amounts are exact decimal strings.
import { Decimal } from "../money/amounts.ts";
import { fiatById } from "../money/currencies.ts";
import { CHAINS, isNetworkSlug } from "../networks.ts";
import type { LedgerEntryRecord, LedgerKind, LedgerSumRecord } from "../records/ledger.ts";

/** in: money received; out: money that left the merchant; internal: moved between the merchant's own addresses (a consolidation, a flush). */
export type LedgerDirection = "in" | "out" | "internal";
const DIRECTION: Record<LedgerKind, LedgerDirection> = { receipt: "in", refund: "out", consolidation: "internal", flush: "internal" };

/** A flush's gas is paid in the network's coin (by the operator's fee payer); the other kinds' fees in the entry's own coin. */
function feeCoinOf(e: LedgerEntryRecord): string {
  return e.kind === "flush" && isNetworkSlug(e.network) ? CHAINS[e.network].feeCoin : e.coin;
}

export interface LedgerEntryView {
  id: string;
  object: "ledger_entry";
  kind: LedgerKind;
  direction: LedgerDirection;
  is_live: boolean;
  occurred_at: string;
  coin: string;
  network: string;
  amount: string;
  fee: string | null;
  /** The coin the fee is paid in: the entry's own, a flush's the network's fee coin. */
  fee_coin: string;
  tx_hash: string | null;
  address: string | null;
  transaction_id: string | null;
  reference: string | null;
  description: string | null;
  fiat_currency: string | null;
  locked_rate: string | null;
  fiat_value_at_locked_rate: string | null;
  rate_at_time: string | null;
  fiat_value_at_time: string | null;
}

const text = (value: Decimal | null) => (value === null ? null : value.toFixed());

/** amount × rate in the fiat's decimals, rounded down as a refund's fiat_amount is. */
function fiatValue(amount: Decimal, rate: Decimal | null, fiatId: number | null): string | null {
  if (rate === null || fiatId === null) return null;
  const places = fiatById(fiatId)?.decimals ?? 2;
  return amount.times(rate).toDecimalPlaces(places, Decimal.ROUND_DOWN).toFixed(places);
}

export function ledgerEntryView(e: LedgerEntryRecord): LedgerEntryView {
  return {
    id: e.id,
    object: "ledger_entry",
    kind: e.kind,
    direction: DIRECTION[e.kind],
    is_live: e.isLive,
    occurred_at: e.occurredAt.toISOString(),
    coin: e.coin,
    network: e.network,
    amount: e.amount.toFixed(),
    fee: text(e.fee),
    fee_coin: feeCoinOf(e),
    tx_hash: e.txHash,
    address: e.address,
    transaction_id: e.transactionId,
    reference: e.reference,
    description: e.description,
    fiat_currency: e.fiatCurrencyId === null ? null : (fiatById(e.fiatCurrencyId)?.slug ?? null),
    locked_rate: text(e.lockedRate),
    fiat_value_at_locked_rate: fiatValue(e.amount, e.lockedRate, e.fiatCurrencyId),
    rate_at_time: text(e.rateAtTime),
    fiat_value_at_time: fiatValue(e.amount, e.rateAtTime, e.fiatCurrencyId),
  };
}

export interface LedgerTotalsView {
  coin: string;
  network: string;
  receipts: number;
  received: string;
  refunds: number;
  refunded: string;
  refund_fees: string;
  consolidations: number;
  consolidated: string;
  consolidation_fees: string;
  /** Payments' forwarders emptied into their settlement addresses, and what they moved (internal: net unchanged). */
  flushes: number;
  flushed: string;
  /** received − refunded − refund_fees − consolidation_fees: what the merchant's own addresses hold from these entries. */
  net: string;
}

/** The sums per kind folded into one line per coin and network, ordered by coin then network. */
export function ledgerTotals(sums: LedgerSumRecord[]): LedgerTotalsView[] {
  const lines = new Map<string, { coin: string; network: string; by: Partial<Record<LedgerKind, LedgerSumRecord>> }>();
  for (const s of sums) {
    const key = `${s.coin} ${s.network}`;
    const line = lines.get(key) ?? { coin: s.coin, network: s.network, by: {} };
    line.by[s.kind] = s;
    lines.set(key, line);
  }
  const zero = new Decimal(0);
  return [...lines.values()]
    .sort((a, b) => a.coin.localeCompare(b.coin) || a.network.localeCompare(b.network))
    .map(({ coin, network, by }) => {
      const received = by.receipt?.amount ?? zero;
      const refunded = by.refund?.amount ?? zero;
      const refundFees = by.refund?.fee ?? zero;
      const consolidationFees = by.consolidation?.fee ?? zero;
      return {
        coin,
        network,
        receipts: by.receipt?.count ?? 0,
        received: received.toFixed(),
        refunds: by.refund?.count ?? 0,
        refunded: refunded.toFixed(),
        refund_fees: refundFees.toFixed(),
        consolidations: by.consolidation?.count ?? 0,
        consolidated: (by.consolidation?.amount ?? zero).toFixed(),
        consolidation_fees: consolidationFees.toFixed(),
        flushes: by.flush?.count ?? 0,
        flushed: (by.flush?.amount ?? zero).toFixed(),
        net: received.minus(refunded).minus(refundFees).minus(consolidationFees).toFixed(),
      };
    });
}

/** The export's columns, in order; new ones go at the end (spreadsheets read them by position). */
export const LEDGER_CSV_HEADER = [
  "id",
  "kind",
  "direction",
  "mode",
  "occurred_at",
  "coin",
  "network",
  "amount",
  "fee",
  "fee_coin",
  "tx_hash",
  "address",
  "transaction_id",
  "reference",
  "description",
  "fiat_currency",
  "locked_rate",
  "fiat_value_at_locked_rate",
  "rate_at_time",
  "fiat_value_at_time",
] as const;

/** One entry's cells, in the header's order; absent values are empty cells. */
export function ledgerCsvCells(v: LedgerEntryView): string[] {
  const cells: Record<(typeof LEDGER_CSV_HEADER)[number], string | null> = { ...v, mode: v.is_live ? "live" : "test" };
  return LEDGER_CSV_HEADER.map((column) => cells[column] ?? "");
}
