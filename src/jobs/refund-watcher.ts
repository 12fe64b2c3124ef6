// Schedules the refund watcher's passes (src/core/refunds/watch.ts: how a refund closes from the
// chain side) over the chain nodes the payment watcher uses (src/rails/chains: an own Core node,
// Esplora, EVM JSON-RPC, TRON), and says which reads failed.
import type { CryptoCurrency } from "../core/money/currencies.ts";
import type { NetworkSlug } from "../core/networks.ts";
import { type RefundChains, type RefundReading, type RefundsToClose, RefundWatch } from "../core/refunds/watch.ts";
import { Ticker } from "./ticker.ts";

/** Refunds read per pass (oldest first): more wait for the next. */
const BATCH = 500;

export interface RefundWatchSettings {
  intervalMs: number;
  /** Confirmations a transfer needs in that coin and network (the payment watcher's, PAYGATE_CONFIRMATIONS_…). */
  requiredConfirmations(currency: CryptoCurrency, network?: NetworkSlug): number;
}

export class RefundWatcher extends Ticker {
  private readonly watch: RefundWatch;

  constructor(refunds: RefundsToClose, chains: RefundChains, settings: RefundWatchSettings, log: (line: string) => void = () => {}) {
    super("refund watcher", settings.intervalMs, log);
    this.watch = new RefundWatch(refunds, chains, (currency, network) => settings.requiredConfirmations(currency, network));
  }

  /** One pass over the pending refunds with a destination: what each came to, by refund id. */
  tick(): Promise<Map<string, RefundReading>> {
    return this.watch.run(BATCH, (refund, currency, destination, error) =>
      this.log(`refund watcher: ${refund.id} (${currency.slug} to ${destination}): ${(error as Error).message}; trying again next pass`),
    );
  }
}
