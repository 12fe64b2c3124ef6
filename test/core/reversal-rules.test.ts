// The lifecycle's rules for what a receipt counts, when a SUCCESSFUL transaction is final, and when a
// vanished receipt is a reversal (src/core/transactions/lifecycle.ts), as pure functions.
import { describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import type { ReceiptTotals } from "../../src/core/stores/transactions.ts";
import { counts, isFinal, paymentStateOf, receiptRules } from "../../src/core/transactions/lifecycle.ts";

const totals = (over: Partial<ReceiptTotals>): ReceiptTotals => ({
  status: "SUCCESSFUL",
  paymentAmount: new Decimal("1"),
  confirmed: new Decimal("1"),
  unconfirmed: new Decimal(0),
  reversed: 0,
  leastChainConfirmations: 6,
  reversedAt: null,
  ...over,
});

describe("counts", () => {
  it("counts a receipt at its required confirmations, and a replaceable one never at 0", () => {
    expect(counts({ confirmations: 5 }, 6)).toBe(false);
    expect(counts({ confirmations: 6 }, 6)).toBe(true);
    expect(counts({ confirmations: 0 }, 0)).toBe(true);
    expect(counts({ confirmations: 0, replaceable: false }, 0)).toBe(true);
    expect(counts({ confirmations: 0, replaceable: true }, 0)).toBe(false);
    expect(counts({ confirmations: 1, replaceable: true }, 0)).toBe(true);
  });
});

describe("isFinal", () => {
  it("goes by depth unless the node says whether its finalized block covers the receipt", () => {
    expect(isFinal({ confirmations: 63 }, 64)).toBe(false);
    expect(isFinal({ confirmations: 64 }, 64)).toBe(true);
    expect(isFinal({ confirmations: 100, finalized: false }, 64)).toBe(false);
    expect(isFinal({ confirmations: 3, finalized: true }, 64)).toBe(true);
  });
});

describe("receiptRules", () => {
  const rules = receiptRules(12);

  it("reverses a counted receipt of a SUCCESSFUL transaction that vanished; drops every other", () => {
    expect(rules.vanished("SUCCESSFUL", { key: "ab:0", status: "CONFIRMED" })).toBe("REVERSED");
    expect(rules.vanished("SUCCESSFUL", { key: "ab:1", status: "SEEN" })).toBe("DROPPED");
    expect(rules.vanished("PENDING", { key: "ab:0", status: "CONFIRMED" })).toBe("DROPPED");
    expect(rules.vanished("ABANDONED", { key: "ab:0", status: "CONFIRMED" })).toBe("DROPPED");
    // A balance part (EVM) is re-split or swept, never reversed.
    expect(rules.vanished("SUCCESSFUL", { key: "balance:internal:confirmed", status: "CONFIRMED" })).toBe("DROPPED");
    expect(rules.vanished("SUCCESSFUL", { key: "balance:confirmed", status: "CONFIRMED" })).toBe("DROPPED");
  });

  it("reverses a SUCCESSFUL transaction once, when a receipt was reversed and the rest does not cover it", () => {
    expect(rules.moves(totals({ reversed: 1, confirmed: new Decimal(0), leastChainConfirmations: null })).reverses).toBe(true);
    // Still covered (an overpayment, or the money back in the mempool): no reversal.
    expect(rules.moves(totals({ reversed: 1 })).reverses).toBe(false);
    expect(rules.moves(totals({ reversed: 1, confirmed: new Decimal(0), unconfirmed: new Decimal(1) })).reverses).toBe(false);
    // Nothing reversed by this update, or reversed before: nothing more to tell.
    expect(rules.moves(totals({ confirmed: new Decimal(0) })).reverses).toBe(false);
    expect(rules.moves(totals({ reversed: 1, confirmed: new Decimal(0), reversedAt: new Date() })).reverses).toBe(false);
    expect(rules.moves(totals({ status: "PENDING", reversed: 1, confirmed: new Decimal(0) })).reverses).toBe(false);
  });

  it("makes a SUCCESSFUL transaction final once its least-confirmed chain receipt is deep enough, or it has none", () => {
    expect(rules.moves(totals({ leastChainConfirmations: 11 })).final).toBe(false);
    expect(rules.moves(totals({ leastChainConfirmations: 12 })).final).toBe(true);
    expect(rules.moves(totals({ leastChainConfirmations: null })).final).toBe(true);
    // A PENDING one that this update completes is judged the same; one still PENDING never is final.
    expect(rules.moves(totals({ status: "PENDING", leastChainConfirmations: 12 }))).toEqual({ completes: true, reverses: false, final: true });
    expect(rules.moves(totals({ status: "PENDING", confirmed: new Decimal("0.5"), leastChainConfirmations: 12 })).final).toBe(false);
  });

  it("lets the node's finalized block decide where it tells", () => {
    expect(receiptRules(12, undefined, false).moves(totals({ leastChainConfirmations: 100 })).final).toBe(false);
    expect(receiptRules(12, undefined, true).moves(totals({ leastChainConfirmations: 2 })).final).toBe(true);
  });
});

describe("paymentStateOf", () => {
  const paid = { status: "SUCCESSFUL" as const, paymentAmount: new Decimal(1), amountPaid: null, amountUnconfirmed: null };
  it("reads reversed while a reversed payment is not covered again, paid once the chain brings it back", () => {
    expect(paymentStateOf({ ...paid, reversedAt: new Date() })).toBe("reversed");
    expect(paymentStateOf({ ...paid, reversedAt: new Date(), amountPaid: new Decimal(1) })).toBe("paid");
    expect(paymentStateOf({ ...paid, reversedAt: null, amountPaid: new Decimal(1) })).toBe("paid");
  });
});
