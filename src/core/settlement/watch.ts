// Seeing consolidations mined (issue 40; docs/settlement.md, How a consolidation closes), the way the
// refund watcher sees a refund (core/refunds/watch.ts): the chain is asked what reached the
// destination since the consolidation was made. Its own transaction (its id is known from the
// unsigned PSBT: segwit inputs keep it) seen at 0 or more confirmations makes it `seen`; with the
// confirmations a payment in that coin needs, `confirmed`, and its outputs stay spent by it for good.
import { cryptoBySlug, type CryptoCurrency } from "../money/currencies.ts";
import { networkOrDefault, type NetworkSlug } from "../networks.ts";
import type { ConsolidationRecord, ConsolidationState } from "../records/settlement.ts";
import type { RefundChains } from "../refunds/watch.ts";

/** The settlement façade's chain side. */
export interface ConsolidationsToWatch {
  consolidationsToWatch(limit: number): Promise<ConsolidationRecord[]>;
  consolidationMoved(id: string, from: ConsolidationState, to: ConsolidationState): Promise<ConsolidationRecord | null>;
}

/** What one consolidation came to in a pass. */
export type ConsolidationReading = "confirmed" | "seen" | "waiting";

export type ConsolidationReadFailed = (consolidation: ConsolidationRecord, error: unknown) => void;

export class ConsolidationWatch {
  constructor(
    private readonly consolidations: ConsolidationsToWatch,
    private readonly chains: RefundChains,
    private readonly requiredConfirmations: (currency: CryptoCurrency, network?: NetworkSlug) => number,
  ) {}

  async run(limit: number, readFailed: ConsolidationReadFailed = () => {}): Promise<Map<string, ConsolidationReading>> {
    const watched = (await this.consolidations.consolidationsToWatch(limit)).flatMap((consolidation) => {
      const currency = cryptoBySlug(consolidation.coin);
      return currency === undefined ? [] : [{ consolidation, currency, network: networkOrDefault(currency.slug, consolidation.network) }];
    });
    this.chains.beginPass?.(
      watched.map(({ consolidation, currency, network }) => ({
        currency,
        network,
        isLive: consolidation.isLive,
        address: consolidation.destination,
        since: consolidation.createdAt,
        receipts: [],
      })),
    );
    const outcomes = new Map<string, ConsolidationReading>();
    for (const { consolidation, currency, network } of watched) {
      try {
        const required = this.requiredConfirmations(currency, network);
        const receipts = await this.chains.receiptsTo(currency, consolidation.isLive, consolidation.destination, {
          since: consolidation.createdAt,
          requiredConfirmations: required,
          network,
        });
        const own = receipts.filter((r) => r.txHash !== null && r.txHash.toLowerCase() === consolidation.txHash.toLowerCase());
        if (own.length === 0) {
          outcomes.set(consolidation.id, "waiting");
          continue;
        }
        const confirmations = Math.min(...own.map((r) => r.confirmations));
        const to: ConsolidationState = confirmations >= required ? "confirmed" : "seen";
        if (to !== consolidation.state) await this.consolidations.consolidationMoved(consolidation.id, consolidation.state, to);
        outcomes.set(consolidation.id, to);
      } catch (error) {
        readFailed(consolidation, error);
      }
    }
    return outcomes;
  }
}
