// The ledger as REST, the CLI and the CSV show it (issue 40, goal 5; docs/ledger.md): an entry, the
// totals per coin and network, and the export's columns. Amounts are exact decimal strings.
import { Decimal } from "../money/amounts.ts";
import { fiatById } from "../money/currencies.ts";
import { CHAINS, isNetworkSlug } from "../networks.ts";
import type { LedgerEntryRecord, LedgerKind, LedgerSumRecord } from "../records/ledger.ts";

/** in: money received; out: money that left the merchant; internal: moved between the merchant's own addresses (a consolidation, a flush, a sweep). */
export type LedgerDirection = "in" | "out" | "internal";
const DIRECTION: Record<LedgerKind, LedgerDirection> = {
  receipt: "in",
  refund: "out",
  consolidation: "internal",
  flush: "internal",
  sweep: "internal",
};

/** A flush's and a sweep's gas is paid in the network's coin (a flush's by the operator's fee payer); the other kinds' fees in the entry's own coin. */
function feeCoinOf(e: { kind: LedgerKind; network: string; coin: string }): string {
  return (e.kind === "flush" || e.kind === "sweep") && isNetworkSlug(e.network) ? CHAINS[e.network].feeCoin : e.coin;
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
  /** A sweep's top-up from the merchant's fee wallet, and that top-up's own fee in `fee_coin`; null for the other kinds. */
  top_up_tx_hash: string | null;
  top_up_fee: string | null;
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
    top_up_tx_hash: e.topUpTxHash,
    top_up_fee: text(e.topUpFee),
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
  /** Sweeps of this coin (the merchant's own transactions off its payment addresses, posted back) and what reached their destinations (internal). */
  sweeps: number;
  swept: string;
  /**
   * On the network's fee coin's line: the gas every sweep on the network paid from its payment address
   * (`sweep_fees`), and what the top-ups themselves cost the merchant's fee wallet (`own_sweep_fees`).
   */
  sweep_fees: string;
  own_sweep_fees: string;
  /**
   * received − refunded − refund_fees − consolidation_fees − sweep_fees − own_sweep_fees: what the
   * merchant's own addresses hold from these entries.
   */
  net: string;
}

type TotalsLine = { coin: string; network: string; by: Partial<Record<LedgerKind, LedgerSumRecord>>; sweepFees: Decimal; ownSweepFees: Decimal };

/** The sums per kind folded into one line per coin and network, ordered by coin then network. */
export function ledgerTotals(sums: LedgerSumRecord[]): LedgerTotalsView[] {
  const zero = new Decimal(0);
  const lines = new Map<string, TotalsLine>();
  const lineOf = (coin: string, network: string): TotalsLine => {
    const key = `${coin} ${network}`;
    const line = lines.get(key) ?? { coin, network, by: {}, sweepFees: zero, ownSweepFees: zero };
    lines.set(key, line);
    return line;
  };
  for (const s of sums) lineOf(s.coin, s.network).by[s.kind] = s;
  // A sweep's gas and its top-up's are paid in the network's coin: they count on that coin's line.
  for (const s of sums.filter((x) => x.kind === "sweep")) {
    const line = lineOf(feeCoinOf(s), s.network);
    line.sweepFees = line.sweepFees.plus(s.fee);
    line.ownSweepFees = line.ownSweepFees.plus(s.topUpFee);
  }
  return [...lines.values()]
    .sort((a, b) => a.coin.localeCompare(b.coin) || a.network.localeCompare(b.network))
    .map(({ coin, network, by, sweepFees, ownSweepFees }) => {
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
        sweeps: by.sweep?.count ?? 0,
        swept: (by.sweep?.amount ?? zero).toFixed(),
        sweep_fees: sweepFees.toFixed(),
        own_sweep_fees: ownSweepFees.toFixed(),
        net: received.minus(refunded).minus(refundFees).minus(consolidationFees).minus(sweepFees).minus(ownSweepFees).toFixed(),
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
  "top_up_tx_hash",
  "top_up_fee",
] as const;

/** One entry's cells, in the header's order; absent values are empty cells. */
export function ledgerCsvCells(v: LedgerEntryView): string[] {
  const cells: Record<(typeof LEDGER_CSV_HEADER)[number], string | null> = { ...v, mode: v.is_live ? "live" : "test" };
  return LEDGER_CSV_HEADER.map((column) => cells[column] ?? "");
}
