// The settlement context's façade (issue 40; docs/settlement.md): consolidations of the merchant's
// settled BTC and LTC outputs. Every door comes with a MerchantAccess; each use case checks its
// permission once, then works on that merchant and mode (a test key reaches test mode only). The
// watcher's operations (the chain side) need no merchant access.
import type { CoreDeps } from "../deps.ts";
import type { ConsolidationRecord, ConsolidationState } from "../records/settlement.ts";
import * as consolidations from "../settlement/consolidations.ts";
import { consolidationEvent } from "../settlement/events.ts";
import * as flushRules from "../settlement/flush-rules.ts";
import type { FlushRuleView } from "../settlement/flush-rules.ts";
import { type FeePayerState, type FlushPassReport, type FlushThresholds, feePayerStates, flushPass } from "../settlement/flush-pass.ts";
import type { FlushView, ForwarderSettingView } from "../settlement/forwarder-view.ts";
import * as forwarders from "../settlement/forwarders.ts";
import type { ConsolidationOutcome, SettlementOwner } from "../settlement/consolidations.ts";
import { sweepPlan } from "../settlement/sweep-plan.ts";
import type { SweepView } from "../settlement/sweep-record-view.ts";
import * as sweeps from "../settlement/sweeps.ts";
import type { SweepPlanView } from "../settlement/sweep-view.ts";
import * as ownAddresses from "../own-addresses/settings.ts";
import * as unmatched from "../own-addresses/unmatched.ts";
import type { OwnAddressSettingView, UnmatchedReceiptView } from "../own-addresses/view.ts";
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

  // ── Deposit forwarders on EVM networks ──

  forwarderSettings(access: MerchantAccess): Promise<ForwarderSettingView[]> {
    return forwarders.forwarderSettings(this.deps, readerOf(access));
  }

  /** Names where money goes: from the dashboard it needs a recent password, as a consolidation does. */
  setForwarderSetting(access: MerchantAccess, network: string, body: unknown): Promise<ForwarderSettingView> {
    const owner = changerOf(access);
    access.requireRecentProof();
    return forwarders.setForwarderSetting(this.deps, owner, network, body);
  }

  removeForwarderSetting(access: MerchantAccess, network: string): Promise<void> {
    return forwarders.removeForwarderSetting(this.deps, changerOf(access), network);
  }

  flushRules(access: MerchantAccess): Promise<FlushRuleView[]> {
    return flushRules.flushRules(this.deps, readerOf(access));
  }

  /** When the job flushes: no money goes anywhere else, so no recent password, as a flush on demand. */
  setFlushRule(access: MerchantAccess, network: string, body: unknown): Promise<FlushRuleView> {
    return flushRules.setFlushRule(this.deps, changerOf(access), network, body);
  }

  removeFlushRule(access: MerchantAccess, network: string): Promise<void> {
    return flushRules.removeFlushRule(this.deps, changerOf(access), network);
  }

  flushForwarders(access: MerchantAccess, body: unknown): Promise<FlushView> {
    return forwarders.flushForwarders(this.deps, changerOf(access), body);
  }

  retrieveFlush(access: MerchantAccess, id: string): Promise<FlushView> {
    return forwarders.retrieveFlush(this.deps, readerOf(access), id);
  }

  listFlushes(access: MerchantAccess, params: Record<string, unknown>) {
    return forwarders.listFlushes(this.deps, readerOf(access), params);
  }

  /** The operator's fee payers in the access's mode, per EVM network: balance and "too low", read from the nodes (every role reads them). */
  feePayers(access: MerchantAccess): Promise<FeePayerState[]> {
    return feePayerStates(this.deps, readerOf(access).isLive);
  }

  /** The flush job's pass: sending flushes read back, thresholds passed flushed, fee payers' balances. */
  flushPass(thresholds: FlushThresholds): Promise<FlushPassReport> {
    return flushPass(this.deps, thresholds);
  }

  // ── Sweep plans of per-payment addresses on account networks ──

  /** Names every address, its derivation and where its funds would go: `manage_settlement`, as what moves money. */
  sweepPlan(access: MerchantAccess, params: Record<string, unknown>): Promise<SweepPlanView> {
    return sweepPlan(this.deps, changerOf(access), params);
  }

  /** The merchant's own sweep transactions, read from the node and recorded: `manage_settlement`, as the plan. */
  recordSweeps(access: MerchantAccess, body: unknown): Promise<sweeps.SweepRecordOutcome> {
    return sweeps.recordSweeps(this.deps, changerOf(access), body);
  }

  listSweeps(access: MerchantAccess, params: Record<string, unknown>) {
    return sweeps.listSweeps(this.deps, readerOf(access), params);
  }

  retrieveSweep(access: MerchantAccess, id: string): Promise<SweepView> {
    return sweeps.retrieveSweep(this.deps, readerOf(access), id);
  }

  // ── Own addresses on TRON (unique amounts) ──

  ownAddressSettings(access: MerchantAccess): Promise<OwnAddressSettingView[]> {
    return ownAddresses.ownAddressSettings(this.deps, readerOf(access));
  }

  setOwnAddressSetting(access: MerchantAccess, network: string, body: unknown): Promise<OwnAddressSettingView> {
    return ownAddresses.setOwnAddressSetting(this.deps, changerOf(access), network, body);
  }

  removeOwnAddressSetting(access: MerchantAccess, network: string): Promise<void> {
    return ownAddresses.removeOwnAddressSetting(this.deps, changerOf(access), network);
  }

  listUnmatchedReceipts(access: MerchantAccess, params: Record<string, unknown>) {
    return unmatched.listUnmatchedReceipts(this.deps, readerOf(access), params);
  }

  retrieveUnmatchedReceipt(access: MerchantAccess, id: string): Promise<UnmatchedReceiptView> {
    return unmatched.retrieveUnmatchedReceipt(this.deps, readerOf(access), id);
  }

  assignUnmatchedReceipt(access: MerchantAccess, id: string, body: unknown): Promise<UnmatchedReceiptView> {
    return unmatched.assignUnmatchedReceipt(this.deps, changerOf(access), id, body);
  }

  refundUnmatchedReceipt(access: MerchantAccess, id: string, body: unknown): Promise<UnmatchedReceiptView> {
    return unmatched.refundUnmatchedReceipt(this.deps, changerOf(access), id, body);
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
