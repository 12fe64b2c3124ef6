// An invoice's pure rules (issue 44; src/core/invoices/rules.ts): totals in exact decimals, numbers,
// what a transaction of the invoice credits, and the state its payments and due date give it.
import { describe, expect, it } from "vitest";
import { creditOf, invoiceNumber, isPastDue, standingOf, totalsOf } from "../../src/core/invoices/rules.ts";
import { Decimal } from "../../src/core/money/amounts.ts";
import { fiatBySlug } from "../../src/core/money/currencies.ts";
import type { InvoicePaymentRecord, InvoiceRecord } from "../../src/core/records/invoices.ts";

const USD = fiatBySlug("USD")!;

describe("totals", () => {
  it("adds quantity × price exactly where binary floats drift, and rounds each tax line half up", () => {
    // 0.1 + 0.2 in floats is 0.30000000000000004; three lines of 0.10 are 0.30 here.
    const totals = totalsOf(
      [
        { description: "a", quantity: 3, unit_price: "0.10" },
        { description: "b", quantity: 1, unit_price: "0.20" },
      ],
      [{ name: "VAT", rate: "7.5" }],
      USD,
    );
    expect(totals.subtotal.toFixed(2)).toBe("0.50");
    // 0.50 × 7.5 % = 0.0375 → 0.04 (half up)
    expect(totals.taxAmounts.map((a) => a.toFixed(2))).toEqual(["0.04"]);
    expect(totals.total.toFixed(2)).toBe("0.54");
  });

  it("applies every tax line to the subtotal, not to each other", () => {
    const totals = totalsOf(
      [{ description: "a", quantity: 2, unit_price: "50.00" }],
      [
        { name: "VAT", rate: "10" },
        { name: "City", rate: "2.25" },
      ],
      USD,
    );
    expect(totals.taxAmounts.map((a) => a.toFixed(2))).toEqual(["10.00", "2.25"]);
    expect(totals.total.toFixed(2)).toBe("112.25");
  });
});

it("numbers invoices INV-0001 on, wider past 9999, none for a draft", () => {
  expect(invoiceNumber(1)).toBe("INV-0001");
  expect(invoiceNumber(12345)).toBe("INV-12345");
  expect(invoiceNumber(null)).toBeNull();
});

const invoice = (overrides: Partial<InvoiceRecord> = {}): InvoiceRecord => ({
  id: "inv_x",
  merchantId: 1,
  isLive: false,
  state: "open",
  sequence: 1,
  customerEmail: "ada@example.com",
  customerName: null,
  currencyId: USD.id,
  items: [],
  taxes: [],
  subtotal: new Decimal(100),
  taxTotal: new Decimal(0),
  total: new Decimal(100),
  memo: null,
  dueDate: null,
  allowPartialPayments: true,
  locale: null,
  token: "t",
  createdAt: new Date(0),
  updatedAt: new Date(0),
  finalizedAt: new Date(0),
  voidedAt: null,
  ...overrides,
});

const payment = (overrides: Partial<InvoicePaymentRecord> = {}): InvoicePaymentRecord => ({
  invoiceId: "inv_x",
  transactionId: "tx",
  status: "SUCCESSFUL",
  initializedAmount: new Decimal(40),
  amountPaid: new Decimal("0.5"),
  quoteRate: new Decimal(80),
  reversedAt: null,
  createdAt: new Date(0),
  ...overrides,
});

describe("what a transaction credits and the state it gives", () => {
  it("credits nothing until the lifecycle calls the payment SUCCESSFUL, nor once it is reversed", () => {
    expect(creditOf(payment({ status: "PENDING" }), 2).toFixed(2)).toBe("0.00");
    expect(creditOf(payment({ reversedAt: new Date() }), 2).toFixed(2)).toBe("0.00");
  });

  it("credits what was asked for (an underpayment within tolerance too) or the coin's worth when more", () => {
    expect(creditOf(payment({ amountPaid: new Decimal("0.49") }), 2).toFixed(2)).toBe("40.00");
    // 0.6 × 80 = 48: an overpayment counts whole.
    expect(creditOf(payment({ amountPaid: new Decimal("0.6") }), 2).toFixed(2)).toBe("48.00");
  });

  it("goes open → partially paid → paid, with the overpaid part shown", () => {
    const now = new Date("2026-12-02T00:00:00Z");
    expect(standingOf(invoice(), [], 2, now).state).toBe("open");
    const part = standingOf(invoice(), [payment()], 2, now);
    expect([part.state, part.amountPaid.toFixed(2), part.amountDue.toFixed(2)]).toEqual(["partially_paid", "40.00", "60.00"]);
    const all = standingOf(invoice(), [payment(), payment({ initializedAmount: new Decimal(60), amountPaid: new Decimal(1) })], 2, now);
    expect([all.state, all.amountDue.toFixed(2), all.amountOverpaid.toFixed(2)]).toEqual(["paid", "0.00", "20.00"]);
  });

  it("is overdue from the day after its due date while something is left; draft and void stay as written", () => {
    const due = new Date("2026-12-01T00:00:00Z");
    expect(isPastDue(due, new Date("2026-12-01T23:59:59Z"))).toBe(false);
    expect(isPastDue(due, new Date("2026-12-02T00:00:00Z"))).toBe(true);
    const late = new Date("2026-12-05T00:00:00Z");
    expect(standingOf(invoice({ dueDate: due }), [payment()], 2, late).state).toBe("overdue");
    expect(standingOf(invoice({ dueDate: due }), [payment({ initializedAmount: new Decimal(100) })], 2, late).state).toBe("paid");
    expect(standingOf(invoice({ state: "draft", dueDate: due }), [], 2, late).state).toBe("draft");
    expect(standingOf(invoice({ state: "void" }), [], 2, late).state).toBe("void");
  });
});
