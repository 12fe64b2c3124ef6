// The figures of the dashboard's home, aggregated by the database over one merchant and mode since
// a moment: src/db/stores/home-figures.ts implements it with a few grouped queries. Amounts are
// exact decimal strings (SQL numeric sums), never floats; currencies are ids (the core names them).
export interface HomeFiguresQuery {
  merchantId: number;
  isLive: boolean;
  /** Transactions created at or after this moment (the start of the first UTC day shown). */
  since: Date;
}

/** The SUCCESSFUL transactions' initialized amounts of one UTC day in one fiat currency. */
export interface DailyVolumeRow {
  /** YYYY-MM-DD, UTC. */
  day: string;
  currencyId: number;
  /** Exact decimal sum, e.g. "125.50". */
  amount: string;
  payments: number;
}

export interface StatusCountRow {
  status: "INITIATED" | "PENDING" | "SUCCESSFUL" | "ABANDONED";
  count: number;
}

/** Transactions whose customer chose this coin, how many of them were paid, and the coin amount paid on those. */
export interface CoinRow {
  currencyId: number;
  checkouts: number;
  payments: number;
  /** Exact decimal sum of amount_paid over its SUCCESSFUL transactions. */
  amountPaid: string;
}

/** Webhook events of the mode still failing: their last attempt failed (given up, or waiting for a retry), by the URL it went to. */
export interface FailingEndpointRow {
  url: string;
  /** Events given up on (FAILED). */
  failed: number;
  /** Events whose last attempt failed and that will be tried again (PENDING). */
  retrying: number;
  lastAttemptAt: Date;
  /** The last failed attempt's HTTP status, or null when no answer came (its error then). */
  lastStatusCode: number | null;
  lastError: string | null;
}

export interface HomeFigures {
  volume: DailyVolumeRow[];
  statuses: StatusCountRow[];
  coins: CoinRow[];
  failingEndpoints: FailingEndpointRow[];
}

export interface HomeFiguresStore {
  figures(query: HomeFiguresQuery): Promise<HomeFigures>;
}
