// Schedules the consolidation watcher's passes (src/core/settlement/watch.ts: how a consolidation is
// seen mined) over the chain nodes the payment watcher uses, and says which reads failed.
import type { ConsolidationReading, ConsolidationsToWatch } from "../core/settlement/watch.ts";
import { ConsolidationWatch } from "../core/settlement/watch.ts";
import type { RefundChains } from "../core/refunds/watch.ts";
import type { RefundWatchSettings } from "./refund-watcher.ts";
import { Ticker } from "./ticker.ts";

/** Consolidations read per pass (oldest first): more wait for the next. */
const BATCH = 200;

export class SettlementWatcher extends Ticker {
  private readonly watch: ConsolidationWatch;

  constructor(consolidations: ConsolidationsToWatch, chains: RefundChains, settings: RefundWatchSettings, log: (line: string) => void = () => {}) {
    super("settlement watcher", settings.intervalMs, log);
    this.watch = new ConsolidationWatch(consolidations, chains, (currency, network) => settings.requiredConfirmations(currency, network));
  }

  /** One pass over the open and seen consolidations: what each came to, by id. */
  tick(): Promise<Map<string, ConsolidationReading>> {
    return this.watch.run(BATCH, (consolidation, error) =>
      this.log(
        `settlement watcher: ${consolidation.id} (${consolidation.coin} to ${consolidation.destination}): ${(error as Error).message}; trying again next pass`,
      ),
    );
  }
}
