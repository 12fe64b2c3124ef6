// Deposit forwarders (issue 40; docs/settlement.md): settings, payments' forwarders and flushes.
// src/db/stores/forwarders.ts implements it; the rules are in src/core/settlement/forwarders.ts.
import type { Decimal } from "../money/amounts.ts";
import type { FlushRecord, FlushRuleRecord, FlushState, ForwarderDepositRecord, ForwarderSettingRecord, MovedAmount } from "../records/forwarders.ts";
import type { OutboxEvent } from "../records/events.ts";
import type { AuditWrite } from "./audit-log.ts";

/** A payment whose forwarder may be flushed. */
export interface FlushableDeposit extends ForwarderDepositRecord {
  finalAt: Date;
}

/** A merchant, network and mode with forwarders waiting, for the flush job's thresholds. */
export interface FlushBacklog {
  merchantId: number;
  isLive: boolean;
  network: string;
  count: number;
  oldestFinalAt: Date;
  /** The merchant's rule for that network and mode, if it set one. */
  rule: FlushRuleRecord | null;
  /** The waiting payments' order amounts in the rule's value fiat (0 without a value threshold). */
  value: Decimal;
}

export type NewFlush = Omit<FlushRecord, "gasUsed" | "fee" | "confirmedAt" | "state" | "blockNumber" | "blockHash" | "finalAt" | "reorganizations">;

export interface FlushResult {
  state: Exclude<FlushState, "sending">;
  gasUsed: bigint | null;
  fee: Decimal | null;
  /** The block it was mined in; null when it was not (replaced). */
  block?: { number: bigint; hash: string } | null;
  /** By transaction id. */
  moved: ReadonlyMap<string, MovedAmount[]>;
}

export interface ForwarderStore {
  setting(merchantId: number, network: string, isLive: boolean): Promise<ForwarderSettingRecord | null>;
  settings(merchantId: number, isLive: boolean): Promise<ForwarderSettingRecord[]>;
  putSetting(setting: ForwarderSettingRecord, audit: AuditWrite | null): Promise<ForwarderSettingRecord>;
  /** True when there was one. */
  removeSetting(merchantId: number, network: string, isLive: boolean, audit: AuditWrite | null): Promise<boolean>;
  flushRules(merchantId: number, isLive: boolean): Promise<FlushRuleRecord[]>;
  putFlushRule(rule: FlushRuleRecord, audit: AuditWrite | null): Promise<FlushRuleRecord>;
  /** True when there was one. */
  removeFlushRule(merchantId: number, network: string, isLive: boolean, audit: AuditWrite | null): Promise<boolean>;
  /** Written at initiate (again by a retried initiate of the same transaction: the last one counts). */
  recordDeposit(deposit: ForwarderDepositRecord): Promise<void>;
  /** The recorded forwarders of these transactions. */
  depositsOf(transactionIds: readonly string[]): Promise<ForwarderDepositRecord[]>;
  /**
   * Forwarders of the merchant's SUCCESSFUL, final, not reversed payments on that network and mode
   * whose address is still the payment's, in no sending or confirmed flush; oldest final first.
   */
  flushable(merchantId: number, isLive: boolean, network: string, limit: number): Promise<FlushableDeposit[]>;
  /** Every merchant, network and mode with flushable forwarders. */
  backlog(): Promise<FlushBacklog[]>;
  /** Inserts it with its items; a forwarder another flush took meanwhile fails with DuplicateKeyError (nothing written). */
  createFlush(flush: NewFlush, audit: AuditWrite | null): Promise<FlushRecord>;
  /**
   * sending → confirmed or failed (failed gives its forwarders back) and writes `eventOf`'s event of the
   * finished flush in the same database transaction; null when it had moved on (nothing written).
   */
  finishFlush(id: string, result: FlushResult, at: Date, eventOf: (finished: FlushRecord) => OutboxEvent | null): Promise<FlushRecord | null>;
  findFlush(id: string, merchantId: number, isLive: boolean): Promise<FlushRecord | null>;
  flushPage(query: { merchantId: number; isLive: boolean; after: { createdAt: Date; id: string } | null; limit: number }): Promise<FlushRecord[]>;
  /** Flushes still sending, oldest first. */
  sending(limit: number): Promise<FlushRecord[]>;
  /** Confirmed flushes whose block is not final yet, oldest first. */
  confirmedNotFinal(limit: number): Promise<FlushRecord[]>;
  /** Its block passed the finality depth: not read again. */
  flushFinal(id: string, at: Date): Promise<void>;
  /** Mined again in another block (a reorganisation): the block it is in now. */
  flushBlockMoved(id: string, block: { number: bigint; hash: string }): Promise<void>;
  /**
   * confirmed → sending (its block left the chain): gas, fee, block and what moved are cleared, its
   * reorganizations counted, and `eventOf`'s event written in the same database transaction; null when
   * it had moved on or its recorded block changed meanwhile (nothing written).
   */
  reorganizeFlush(id: string, blockHash: string, eventOf: (flush: FlushRecord) => OutboxEvent): Promise<FlushRecord | null>;
}
