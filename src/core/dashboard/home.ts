// The dashboard's home: how the business is doing in the mode shown, over the last 30 UTC days
// (today included). The database groups and sums (stores/home-figures.ts); this names currencies,
// fills the days without payments, and works out the share of checkouts that were paid. Volume is
// the initialized (fiat) amount of SUCCESSFUL transactions, by the day each was created, per fiat
// currency: exact decimal strings, never floats.
import type { CoreDeps } from "../deps.ts";
import { Decimal } from "../money/amounts.ts";
import { cryptoById, fiatById } from "../money/currencies.ts";
import type { FailingEndpointRow, StatusCountRow } from "../stores/home-figures.ts";
import type { MerchantReach } from "../access/roles.ts";

/** How many UTC days the home covers, today included. */
export const HOME_DAYS = 30;

const STATUSES: StatusCountRow["status"][] = ["INITIATED", "PENDING", "SUCCESSFUL", "ABANDONED"];
const DAY_MS = 86_400_000;

export interface DayVolume {
  /** YYYY-MM-DD (UTC). */
  day: string;
  amount: string;
  payments: number;
}

export interface CurrencyVolume {
  /** The fiat currency's slug (USD, NGN). */
  currency: string;
  total: string;
  payments: number;
  /** Every day of the window, oldest first; a day without payments has amount "0". */
  days: DayVolume[];
}

export interface CoinFigures {
  /** The coin's slug (BTC, USDT…). */
  currency: string;
  /** Transactions whose customer chose this coin. */
  checkouts: number;
  /** Of those, the SUCCESSFUL ones. */
  payments: number;
  /** What those paid, in the coin: an exact decimal string. */
  amountPaid: string;
}

export interface DashboardHome {
  /** The window: its first and last UTC day, YYYY-MM-DD. */
  from: string;
  to: string;
  volume: CurrencyVolume[];
  /** Every status, in the lifecycle's order, with its count (0 when none). */
  statuses: StatusCountRow[];
  /** Checkouts initiated (a coin chosen) and paid among them; `share` a percentage with one decimal, null with none initiated. */
  conversion: { initiated: number; paid: number; share: string | null };
  coins: CoinFigures[];
  failingEndpoints: FailingEndpointRow[];
}

const dayOf = (time: number): string => new Date(time).toISOString().slice(0, 10);
const exact = (amount: string): string => new Decimal(amount).toFixed();

export async function dashboardHome(deps: Pick<CoreDeps, "stores" | "clock">, access: MerchantReach): Promise<DashboardHome> {
  access.require("read");
  const { merchantId, isLive } = access;
  const today = Date.parse(`${dayOf(deps.clock.now().getTime())}T00:00:00Z`);
  const first = today - (HOME_DAYS - 1) * DAY_MS;
  const days = Array.from({ length: HOME_DAYS }, (_, i) => dayOf(first + i * DAY_MS));
  const figures = await deps.stores.homeFigures.figures({ merchantId, isLive, since: new Date(first) });

  const byCurrency = new Map<number, Map<string, DayVolume>>();
  for (const row of figures.volume) {
    const daysOf = byCurrency.get(row.currencyId) ?? new Map<string, DayVolume>();
    daysOf.set(row.day, { day: row.day, amount: exact(row.amount), payments: row.payments });
    byCurrency.set(row.currencyId, daysOf);
  }
  const volume = [...byCurrency]
    .map(([currencyId, daysOf]): CurrencyVolume => {
      const series = days.map((day) => daysOf.get(day) ?? { day, amount: "0", payments: 0 });
      return {
        currency: fiatById(currencyId)?.slug ?? String(currencyId),
        total: series.reduce((sum, d) => sum.plus(d.amount), new Decimal(0)).toFixed(),
        payments: series.reduce((sum, d) => sum + d.payments, 0),
        days: series,
      };
    })
    .sort((a, b) => a.currency.localeCompare(b.currency));

  const coins = figures.coins.map((row) => ({
    currency: cryptoById(row.currencyId)?.slug ?? String(row.currencyId),
    checkouts: row.checkouts,
    payments: row.payments,
    amountPaid: exact(row.amountPaid),
  }));
  const initiated = coins.reduce((sum, c) => sum + c.checkouts, 0);
  const paid = coins.reduce((sum, c) => sum + c.payments, 0);
  const counts = new Map(figures.statuses.map((row) => [row.status, row.count]));

  return {
    from: days[0] as string,
    to: days[HOME_DAYS - 1] as string,
    volume,
    statuses: STATUSES.map((status) => ({ status, count: counts.get(status) ?? 0 })),
    conversion: { initiated, paid, share: initiated === 0 ? null : new Decimal(paid).times(100).dividedBy(initiated).toFixed(1) },
    coins,
    failingEndpoints: figures.failingEndpoints,
  };
}
