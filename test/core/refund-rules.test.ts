// The refund rules (src/core/refunds/rules.ts): what is left to refund, how each amount kind is
// reached and valued, which fields a request may combine, and the destination's coin and network.
import { describe, expect, it } from "vitest";
import { PaygateError } from "../../src/core/errors.ts";
import { Decimal } from "../../src/core/money/amounts.ts";
import { cryptoBySlug, fiatBySlug } from "../../src/core/money/currencies.ts";
import { amountOf, bodyProblems, countedRefundsOf, destinationProblem, RefundBody, refundableOf } from "../../src/core/refunds/rules.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";

const LTC = cryptoBySlug("LTC")!;
const ETH = cryptoBySlug("ETH")!;
const USD = fiatBySlug("USD")!;
const paid = (amountPaid: string, paymentAmount = amountPaid) => ({ amountPaid: new Decimal(amountPaid), paymentAmount: new Decimal(paymentAmount) });
const body = (b: unknown) => RefundBody.parse(b);

function refusal(run: () => unknown): PaygateError {
  try {
    run();
  } catch (error) {
    if (error instanceof PaygateError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("what is left to refund", () => {
  it("is the confirmed amount paid less the refunds that count, never below 0", () => {
    expect(refundableOf(paid("1.5"), new Decimal("0.4")).toFixed()).toBe("1.1");
    expect(refundableOf({ amountPaid: null }, new Decimal(0)).toFixed()).toBe("0");
    expect(refundableOf(paid("1"), new Decimal("2")).toFixed()).toBe("0");
  });

  it("counts the pending and succeeded refunds, exactly, and not the canceled ones", () => {
    const refunds = [
      { state: "pending" as const, amount: new Decimal("0.1") },
      { state: "canceled" as const, amount: new Decimal("5") },
      { state: "succeeded" as const, amount: new Decimal("0.2") },
    ];
    expect(countedRefundsOf(refunds).toFixed()).toBe("0.3");
    expect(countedRefundsOf([]).toFixed()).toBe("0");
  });
});

describe("the amount of each kind", () => {
  const rate = new Decimal("80");
  it("full is all that was paid; overpaid what was paid beyond the payment amount", () => {
    expect(amountOf("full", body({}), paid("1.25"), LTC, USD, rate, new Decimal("1.25"))).toEqual({
      crypto: new Decimal("1.25"),
      fiat: new Decimal("100"),
    });
    expect(amountOf("overpaid", body({ amount_kind: "overpaid" }), paid("1.5", "1.25"), LTC, USD, rate, new Decimal("1.5")).crypto.toFixed()).toBe(
      "0.25",
    );
    const none = refusal(() => amountOf("overpaid", body({ amount_kind: "overpaid" }), paid("1.25"), LTC, USD, rate, new Decimal("1.25")));
    expect([none.code, none.reason, none.message]).toEqual([
      "invalid_state",
      "nothing_overpaid",
      "Nothing was overpaid on this transaction; 1.25 LTC can still be refunded",
    ]);
  });

  it("custom fiat is converted at the rate and rounded down to the coin; custom coin is taken as given", () => {
    const fiat = amountOf(
      "custom",
      body({ amount_kind: "custom", amount: "10", amount_currency: "usd" }),
      paid("5"),
      LTC,
      USD,
      new Decimal("3"),
      new Decimal("5"),
    );
    expect(fiat.crypto.toFixed()).toBe("3.33333333");
    expect(fiat.fiat.toFixed()).toBe("9.99");
    const coin = amountOf(
      "custom",
      body({ amount_kind: "custom", amount: "0.5", amount_currency: "LTC" }),
      paid("5"),
      LTC,
      USD,
      new Decimal("3"),
      new Decimal("5"),
    );
    expect([coin.crypto.toFixed(), coin.fiat.toFixed()]).toEqual(["0.5", "1.5"]);
    const other = refusal(() =>
      amountOf(
        "custom",
        body({ amount_kind: "custom", amount: "1", amount_currency: "NGN" }),
        paid("5"),
        LTC,
        USD,
        new Decimal("3"),
        new Decimal("5"),
      ),
    );
    expect(other.errors).toEqual([
      { field: "amount_currency", message: "amount_currency must be USD (the transaction's currency) or LTC (the coin it was paid in)" },
    ]);
    const tiny = refusal(() =>
      amountOf(
        "custom",
        body({ amount_kind: "custom", amount: "0.00000001", amount_currency: "USD" }),
        paid("5"),
        LTC,
        USD,
        new Decimal("3"),
        new Decimal("5"),
      ),
    );
    expect(tiny.errors[0]?.message).toBe("amount has more than 2 decimal places, the precision of USD");
  });

  it("refuses more than what is left, naming it", () => {
    const over = refusal(() =>
      amountOf("custom", body({ amount_kind: "custom", amount: "0.6", amount_currency: "LTC" }), paid("1"), LTC, USD, rate, new Decimal("0.5")),
    );
    expect([over.code, over.message]).toEqual(["invalid_state", "The refund is more than what is left to refund: 0.5 LTC can still be refunded"]);
  });
});

describe("which fields a request may combine", () => {
  it("names amount and amount_currency with custom only, and fee_rate for BTC and LTC from 1 to 10000 sat/vB", () => {
    expect(bodyProblems(body({ amount_kind: "custom" }), LTC).map((p) => p.field)).toEqual(["amount", "amount_currency"]);
    expect(bodyProblems(body({ amount: "1" }), LTC)).toEqual([
      { field: "amount", message: "amount is given only when amount_kind is custom (full sets it)" },
    ]);
    expect(bodyProblems(body({ fee_rate: "2.5" }), LTC)).toEqual([]);
    expect(bodyProblems(body({ fee_rate: 10001 }), LTC)[0]?.message).toBe("fee_rate must be from 1 to 10000 sat/vB, with at most 3 decimal places");
    expect(bodyProblems(body({ fee_rate: "2" }), ETH)).toEqual([
      { field: "fee_rate", message: "fee_rate (sat/vB) applies to BTC and LTC only, not ETH" },
    ]);
  });
});

describe("the destination", () => {
  const rails = new HdWalletRails({});
  it("must be an address of the coin, on its network, in the refund's mode", () => {
    const testKey = rails.createTestWallet(LTC);
    const testAddress = rails.deriveAddress(LTC, false, testKey, 3);
    expect(destinationProblem(rails, LTC, false, "litecoin", testAddress, "address")).toBeNull();
    expect(destinationProblem(rails, LTC, true, "litecoin", testAddress, "address")?.message).toMatch(
      /^address is not a valid LTC address on litecoin for live mode/,
    );
    const ethAddress = rails.deriveAddress(ETH, false, rails.createTestWallet(ETH), 0);
    expect(destinationProblem(rails, LTC, false, "litecoin", ethAddress, "refund_address")?.field).toBe("refund_address");
    expect(destinationProblem(rails, ETH, false, "ethereum", ethAddress, "address")).toBeNull();
  });
});
