// The settlement context's façade (issue 40; docs/settlement.md): consolidations of the merchant's
// settled BTC and LTC outputs. Every door comes with a MerchantAccess; each use case checks its
// permission once, then works on that merchant and mode (a test key reaches test mode only). The
// watcher's operations (the chain side) need no merchant access.
import type { CoreDeps } from "../deps.ts";
import type { ConsolidationRecord, ConsolidationState } from "../records/settlement.ts";
import * as consolidations from "../settlement/consolidations.ts";
import { consolidationEvent } from "../settlement/events.ts";
import type { ConsolidationOutcome, SettlementOwner } from "../settlement/consolidations.ts";
import type { MerchantAccess } from "./access.ts";

function readerOf(access: MerchantAccess): SettlementOwner {
  access.require("read");
  return { merchantId: access.merchantId, isLive: access.isLive, by: null };
}

function changerOf(access: MerchantAccess): SettlementOwner {
  access.require("manage_settlement");
  return { merchantId: access.merchantId, isLive: access.isLive, by: access.by };
}

export class Settlement {
  constructor(private readonly deps: CoreDeps) {}

  /** A consolidation's PSBT; from the dashboard it needs a recent password, as a refund does: it names where money goes. */
  createConsolidation(access: MerchantAccess, body: unknown): Promise<ConsolidationOutcome> {
    const owner = changerOf(access);
    access.requireRecentProof();
    return consolidations.createConsolidation(this.deps, owner, body);
  }

  retrieveConsolidation(access: MerchantAccess, id: string): Promise<ConsolidationOutcome> {
    return consolidations.retrieveConsolidation(this.deps, readerOf(access), id);
  }

  listConsolidations(access: MerchantAccess, params: Record<string, unknown>) {
    return consolidations.listConsolidations(this.deps, readerOf(access), params);
  }

  cancelConsolidation(access: MerchantAccess, id: string): Promise<ConsolidationOutcome> {
    return consolidations.cancelConsolidation(this.deps, changerOf(access), id);
  }

  // ── The consolidation watcher's (the chain side) ──

  consolidationsToWatch(limit: number): Promise<ConsolidationRecord[]> {
    return this.deps.stores.settlement.toWatch(limit);
  }

  consolidationMoved(id: string, from: ConsolidationState, to: ConsolidationState): Promise<ConsolidationRecord | null> {
    const now = this.deps.clock.now();
    return this.deps.stores.settlement.move(id, from, to, now, null, (moved) => consolidationEvent(moved, now));
  }
}
