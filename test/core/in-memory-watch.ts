// Hand-written in-memory implementations of the ports a watcher pass uses (src/core/watching): the
// transactions store's watch list, its record of receipts under the row "lock" (one call at a time,
// as the database's row lock serialises them) with the event each state change writes (as the outbox
// hook does), and a chain whose blocks a test mines one by one.
import { EVENT_FOR_STATUS, REVERSED_EVENT } from "../../src/core/events/payment-events.ts";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { CryptoCurrency } from "../../src/core/money/currencies.ts";
import type { NetworkSlug } from "../../src/core/networks.ts";
import type { ObservedReceipt } from "../../src/core/ports.ts";
import type { PaymentReceipt, ReceiptStatus, Transaction } from "../../src/core/records/rows.ts";
import type { WatchedAddress } from "../../src/core/stores/transactions.ts";
import type { TransactionRecord } from "../../src/core/records/transactions.ts";
import type { PassAddress, PassChains } from "../../src/core/watching/watch-pass.ts";
import type { WatchStore } from "../../src/core/watching/watched-payments.ts";

/** A receipt as the store keeps it (the id and transaction are the map's). */
export type MemoryReceipt = Omit<PaymentReceipt, "id" | "transactionId">;

/** A transaction PENDING at `address` (paymentCurrencyId 4: BTC), due `paymentAmount`, with what `over` changes. */
export function pendingTransaction(id: string, address: string, paymentAmount: string, over: Partial<Transaction> = {}): TransactionRecord {
  const at = new Date("2026-12-01T10:00:00Z");
  return {
    id,
    reference: `ref-${id}`,
    merchantId: 1,
    customerEmail: "buyer@example.com",
    customerEmailKey: "buyer@example.com",
    customerName: null,
    paymentLinkId: null,
    isLive: false,
    status: "PENDING",
    description: null,
    initializedAmount: new Decimal("100"),
    initializedCurrencyId: 1,
    requestMeta: {},
    paymentCurrencyId: 4,
    paymentNetwork: "bitcoin",
    paymentAmount: new Decimal(paymentAmount),
    amountPaid: null,
    amountUnconfirmed: null,
    confirmations: null,
    requiredConfirmations: null,
    paymentAddress: address,
    walletId: 1,
    derivationIndex: 0,
    ownAddressIndex: null,
    refundAddress: null,
    quoteRate: new Decimal("100"),
    quoteSource: "test",
    quotedAt: at,
    quoteSources: null,
    quoteMarketRate: new Decimal("100"),
    quoteSpreadPercent: null,
    initiatedAt: at,
    expiresAt: new Date(at.getTime() + 30 * 60_000),
    clientSecretEnc: null,
    returnUrl: null,
    cancelUrl: null,
    locale: null,
    policyExpiresIn: null,
    policyUnderpaymentTolerance: null,
    policyConfirmations: null,
    policyLatePaymentPercent: null,
    latePayment: null,
    reversedAt: null,
    finalAt: null,
    createdAt: at,
    updatedAt: at,
    merchant: { id: 1, name: "Watched Ltd" },
    ...over,
  };
}

/** The transactions store's part a pass writes through, in memory. */
export class MemoryWatchStore implements WatchStore {
  readonly rows = new Map<string, TransactionRecord>();
  readonly receipts = new Map<string, MemoryReceipt[]>();
  /** The events the outbox would write, in order: [transaction id, type]. */
  readonly events: [string, string][] = [];
  /** Units of work under the row lock (recordReceipts): a pass that writes nothing makes none. */
  writes = 0;
  /** When set, the row lock fails with it (a database outage). */
  failure: Error | null = null;

  add(row: TransactionRecord): void {
    this.rows.set(row.id, row);
    this.receipts.set(row.id, []);
  }

  row(id: string): TransactionRecord {
    const row = this.rows.get(id);
    if (!row) throw new Error(`no transaction ${id}`);
    return row;
  }

  async watchList(lateSince: Date, limit: number, share: { index: number; of: number }, finalitySince: Date = lateSince): Promise<WatchedAddress[]> {
    if (share.of !== 1) throw new Error("the in-memory store watches one share");
    const after = (d: Date | null, since: Date) => d !== null && d.getTime() > since.getTime();
    return [...this.rows.values()]
      .filter(
        (t) =>
          t.paymentAddress !== null &&
          (t.status === "PENDING" ||
            (t.status === "ABANDONED" && after(t.expiresAt, lateSince)) ||
            (t.status === "SUCCESSFUL" && t.finalAt === null && after(t.expiresAt, finalitySince))),
      )
      .sort((a, b) => (a.expiresAt?.getTime() ?? 0) - (b.expiresAt?.getTime() ?? 0))
      .slice(0, limit)
      .map((t) => ({
        id: t.id,
        isLive: t.isLive,
        paymentCurrencyId: t.paymentCurrencyId,
        paymentNetwork: t.paymentNetwork,
        paymentAddress: t.paymentAddress,
        initiatedAt: t.initiatedAt,
        status: t.status,
        reversedAt: t.reversedAt,
        policyConfirmations: t.policyConfirmations,
        receipts: (this.receipts.get(t.id) ?? [])
          .filter((r) => r.source === "chain" && (r.status === "SEEN" || r.status === "CONFIRMED"))
          .map((r) => ({ key: r.key, amount: r.amount, status: r.status, confirmations: r.confirmations, replaceable: r.replaceable })),
      }));
  }

  // As src/db/stores/transactions.ts does it in one database transaction under the row's lock.
  withLockedPayment: WatchStore["withLockedPayment"] = async (transactionId, work) => {
    this.writes++;
    if (this.failure) throw this.failure;
    const current = this.row(transactionId);
    const stored = this.receipts.get(transactionId) ?? [];
    const onChain = () => stored.filter((r) => r.status === "SEEN" || r.status === "CONFIRMED");
    const least = (list: MemoryReceipt[]) => (list.length === 0 ? null : Math.min(...list.map((r) => r.confirmations)));
    // The row's updatedAt, as the database's @updatedAt sets it: the update's time, which the receipts carry.
    let at = current.updatedAt;
    return work({
      current,
      upsertReceipts: async (source, rows, now) => {
        at = now;
        for (const r of rows) {
          const fields = {
            txHash: r.txHash,
            amount: r.amount,
            confirmations: r.confirmations,
            blockHeight: r.blockHeight,
            status: r.confirmed ? ("CONFIRMED" as const) : ("SEEN" as const),
            replaceable: r.replaceable,
            updatedAt: now,
          };
          const found = stored.find((s) => s.key === r.key);
          if (found) Object.assign(found, fields);
          else stored.push({ key: r.key, source, firstSeenAt: now, ...fields });
        }
      },
      onChainExcept: async (source, kept) =>
        onChain()
          .filter((r) => r.source === source && !kept.includes(r.key))
          .map((r) => ({ key: r.key, status: r.status })),
      markReceipts: async (keys, state, now) => {
        for (const r of stored) {
          if (!keys.includes(r.key)) continue;
          r.status = state;
          r.updatedAt = now;
        }
      },
      sums: async () => {
        const sum = (status: ReceiptStatus) =>
          onChain()
            .filter((r) => r.status === status)
            .reduce((a, r) => a.plus(r.amount), new Decimal(0));
        return {
          confirmed: sum("CONFIRMED"),
          unconfirmed: sum("SEEN"),
          leastUnconfirmedConfirmations: least(onChain().filter((r) => r.status === "SEEN")),
          leastChainConfirmations: least(onChain().filter((r) => r.source === "chain")),
        };
      },
      write: async (change) => {
        const next: TransactionRecord = {
          ...current,
          amountPaid: change.amountPaid,
          amountUnconfirmed: change.amountUnconfirmed,
          confirmations: change.confirmations,
          requiredConfirmations: change.requiredConfirmations,
          status: change.status ?? current.status,
          reversedAt: change.reversedAt ?? current.reversedAt,
          finalAt: change.finalAt ?? current.finalAt,
          updatedAt: at,
        };
        this.save(current, next);
        return next;
      },
    });
  };

  settleLatePayment: WatchStore["settleLatePayment"] = async (transactionId, decision, accept) => {
    const current = this.row(transactionId);
    if (current.status !== "ABANDONED" || current.latePayment !== null) return null;
    const next: TransactionRecord = { ...current, latePayment: { ...decision }, status: accept ? "SUCCESSFUL" : current.status };
    this.save(current, next);
    return next;
  };

  /** Writes the row with the event of its change, as the outbox hook does in the same database transaction. */
  private save(before: TransactionRecord, after: TransactionRecord): void {
    this.rows.set(after.id, after);
    if (after.status !== before.status) this.events.push([after.id, EVENT_FOR_STATUS[after.status]]);
    if (after.reversedAt !== null && before.reversedAt === null) this.events.push([after.id, REVERSED_EVENT]);
  }
}

/** A receipt a test puts on the chain: in a block at `height`, or in the mempool (null). */
export interface ChainOutput {
  key: string;
  amount: string;
  height: number | null;
  replaceable?: boolean;
}

/** A chain whose tip a test moves block by block; a read sees every output to the address. */
export class MemoryChain implements PassChains {
  tip = 100;
  readonly outputs = new Map<string, ChainOutput[]>();
  /** When set, every read fails with it (a node that does not answer). */
  failure: Error | null = null;
  /** Networks no node reads. */
  readonly unsupported = new Set<NetworkSlug>();
  readonly reads: string[] = [];
  readonly passes: (readonly PassAddress[])[] = [];

  pay(address: string, output: ChainOutput): void {
    this.outputs.set(address, [...(this.outputs.get(address) ?? []), output]);
  }

  /** A reorganisation, a double spend or a replacement: the output is no longer on the chain. */
  remove(address: string, key: string): void {
    this.outputs.set(
      address,
      (this.outputs.get(address) ?? []).filter((o) => o.key !== key),
    );
  }

  /** Mines the mempool's outputs into the next block. */
  mine(): void {
    this.tip++;
    for (const list of this.outputs.values()) for (const o of list) if (o.height === null) o.height = this.tip;
  }

  supports(_currency: CryptoCurrency, _isLive: boolean, network?: NetworkSlug): boolean {
    return network === undefined || !this.unsupported.has(network);
  }

  beginPass(payments: readonly PassAddress[]): void {
    this.passes.push(payments);
  }

  async receiptsTo(_currency: CryptoCurrency, _isLive: boolean, address: string): Promise<ObservedReceipt[]> {
    this.reads.push(address);
    if (this.failure) throw this.failure;
    return (this.outputs.get(address) ?? []).map((o) => ({
      key: o.key,
      txHash: o.key.split(":")[0] ?? null,
      amount: new Decimal(o.amount),
      confirmations: o.height === null ? 0 : this.tip - o.height + 1,
      blockHeight: o.height,
      ...(o.replaceable === undefined ? {} : { replaceable: o.replaceable }),
    }));
  }
}
