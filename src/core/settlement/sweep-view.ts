// The sweep plan as REST, the CLI and the sweep tool read it (issue 40; docs/settlement.md, Sweeping
// fresh addresses). Amounts are exact: decimal strings in the coin and, for the tool, base units.
import { Decimal } from "../money/amounts.ts";
import type { NetworkFamily } from "../networks.ts";

/** Whether two addresses of a network family are one: EVM addresses whatever their checksum's case, others (TRON's base58) exactly. */
export function sameAddressOn(family: NetworkFamily, a: string, b: string): boolean {
  return family === "evm" ? a.toLowerCase() === b.toLowerCase() : a === b;
}

export interface SweepFeeView {
  /** "node": the node's estimate; "documented": TRON's documented figures (the node could not say: `note`). */
  source: "node" | "documented";
  note: string | null;
  /** EVM: gas of the transfer; TRON: energy. */
  gas: string | null;
  /** EVM: wei per gas; TRON: sun per energy. */
  gas_price: string | null;
  /** TRON: bandwidth of the transfer (bytes). */
  bandwidth: string | null;
  /** TRON: sun burned to activate an address that holds no TRX. */
  activation: string | null;
  /** The address's own transfer, in the fee coin. */
  transfer: string;
  transfer_units: string;
  /** What the fee wallet sends the address first: the transfer's fee less the fee coin it holds. */
  top_up: string;
  top_up_units: string;
  /** What the top-up transaction itself costs the fee wallet. */
  top_up_fee: string;
  top_up_fee_units: string;
  /** transfer + top_up_fee: what sweeping the address costs. */
  total: string;
  total_units: string;
}

export interface SweepAddressView {
  transaction_id: string;
  address: string;
  coin: string;
  token_contract: string | null;
  decimals: number;
  /** The account key (as the wallet setting has it) the address is derived from. */
  account_key: string;
  derivation_index: number;
  /** Below the account key: `0/<index>`. */
  derivation_path: string;
  /** From the master key when the wallet setting has its key origin (`m/44'/60'/0'/0/<index>`); else null. */
  full_path: string | null;
  held: string;
  held_units: string;
  fee_coin_held: string;
  fee_coin_held_units: string;
  fee: SweepFeeView;
  /** What reaches the destination: all of a token; of the chain's own coin, what is left after its fee. */
  to_send: string;
  to_send_units: string;
  value_usd: string | null;
  fee_usd: string | null;
  /** Why the tool leaves it (a coin balance below its own fee); null when it is swept. */
  skipped: string | null;
}

export interface SweepTotalsView {
  /** Per coin: what the addresses hold and what reaches the destination. */
  coins: { coin: string; addresses: number; held: string; to_send: string; value_usd: string | null }[];
  /** In the fee coin, over the addresses that are swept. */
  fees: { transfer: string; top_up: string; top_up_fee: string; total: string };
  value_usd: string | null;
  fee_usd: string | null;
  /** fee_usd ÷ value_usd × 100, two decimals; null without both. */
  fee_share_percent: string | null;
}

export interface SweepPlanView {
  object: "sweep_plan";
  is_live: boolean;
  network: string;
  network_name: string;
  fee_coin: string;
  destination: string;
  destination_source: "parameter" | "forwarder_setting";
  addresses: SweepAddressView[];
  totals: SweepTotalsView;
  rates: { coin: string; usd: string | null; source: string | null; problem: string | null }[];
  /** Payments read for this plan (addresses that hold nothing are left out of `addresses`). */
  payments_read: number;
  limit: number;
  has_more: boolean;
  /** Pass as `starting_after` for the next payments; null on the last page. */
  next_starting_after: string | null;
  created_at: string;
}

/** Base units as an exact decimal string of the coin. */
export function unitsText(units: bigint, decimals: number): string {
  return new Decimal(units.toString()).div(new Decimal(10).pow(decimals)).toFixed();
}

/** USD to six decimals: a fee of a few cents stays visible. */
export const usdText = (value: Decimal) => value.toDecimalPlaces(6).toFixed();

export function sweepTotals(addresses: readonly SweepAddressView[], feeCoinUsd: Decimal | null): SweepTotalsView {
  const swept = addresses.filter((a) => a.skipped === null);
  const coins = new Map<string, { coin: string; addresses: number; held: Decimal; to_send: Decimal; value: Decimal | null }>();
  const zero = () => new Decimal(0);
  const fees = { transfer: zero(), top_up: zero(), top_up_fee: zero(), total: zero() };
  let value: Decimal | null = zero();
  for (const a of swept) {
    const c = coins.get(a.coin) ?? { coin: a.coin, addresses: 0, held: zero(), to_send: zero(), value: zero() };
    c.addresses += 1;
    c.held = c.held.plus(a.held);
    c.to_send = c.to_send.plus(a.to_send);
    c.value = a.value_usd === null || c.value === null ? null : c.value.plus(a.value_usd);
    coins.set(a.coin, c);
    value = a.value_usd === null || value === null ? null : value.plus(a.value_usd);
    fees.transfer = fees.transfer.plus(a.fee.transfer);
    fees.top_up = fees.top_up.plus(a.fee.top_up);
    fees.top_up_fee = fees.top_up_fee.plus(a.fee.top_up_fee);
    fees.total = fees.total.plus(a.fee.total);
  }
  const feeUsd = feeCoinUsd === null ? null : fees.total.times(feeCoinUsd);
  return {
    coins: [...coins.values()].map((c) => ({
      coin: c.coin,
      addresses: c.addresses,
      held: c.held.toFixed(),
      to_send: c.to_send.toFixed(),
      value_usd: c.value === null ? null : usdText(c.value),
    })),
    fees: { transfer: fees.transfer.toFixed(), top_up: fees.top_up.toFixed(), top_up_fee: fees.top_up_fee.toFixed(), total: fees.total.toFixed() },
    value_usd: value === null ? null : usdText(value),
    fee_usd: feeUsd === null ? null : usdText(feeUsd),
    fee_share_percent: feeUsd === null || value === null || value.isZero() ? null : feeUsd.div(value).times(100).toDecimalPlaces(2).toFixed(2),
  };
}
