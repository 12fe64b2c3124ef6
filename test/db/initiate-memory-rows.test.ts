// A remembered initialized row (src/db/stores/initiate-memory.ts) is kept as text and read back for the
// initiate's move and reply: every column must come back as Prisma gives it, decimals to their last
// digit and dates to the millisecond, or the move would write, and the reply show, another payment.
// No database: the text form alone, and the memory's rule that a row is only its merchant's, in its mode.
import { describe, expect, it } from "vitest";
import { Prisma, type Transaction } from "../../src/db/generated/client.ts";
import { InitiateMemory, rowOfText, rowText } from "../../src/db/stores/initiate-memory.ts";

/** Every column set, with values that a lossy form would change (digits past a double's, milliseconds, nested JSON). */
function fullRow(): Transaction {
  const at = (iso: string) => new Date(iso);
  return {
    id: "0b6f3c1e-5d1a-4c57-9a1e-3f0f9d3b2a11",
    reference: "ref_7d3f9a",
    merchantId: 42,
    customerEmail: "Ada@Example.com",
    customerEmailKey: "ada@example.com",
    customerName: 'Ada "Lovelace" ✓',
    paymentLinkId: 7,
    isLive: true,
    status: "INITIATED",
    description: "line one\nline two",
    initializedAmount: new Prisma.Decimal("123456789012345678.99"),
    initializedCurrencyId: 1,
    requestMeta: { order: { id: 9, lines: [1, 2.5, "x"] }, empty: null },
    paymentCurrencyId: 4,
    paymentNetwork: "bitcoin",
    paymentAmount: new Prisma.Decimal("0.000000000000000001"),
    amountPaid: new Prisma.Decimal("12345678901234567890.123456789012345678"),
    amountUnconfirmed: new Prisma.Decimal("-0.5"),
    confirmations: 3,
    requiredConfirmations: 6,
    paymentAddress: "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh",
    walletId: 11,
    derivationIndex: 2147483647,
    ownAddressIndex: 0,
    refundAddress: "bc1qrefund",
    quoteRate: new Prisma.Decimal("0.000010012345678901"),
    quoteSource: "coingecko",
    quotedAt: at("2026-12-05T04:01:02.003Z"),
    quoteSources: [{ source: "kraken", rate: "99873.1" }],
    quoteMarketRate: new Prisma.Decimal("99873.123456789012345678"),
    quoteSpreadPercent: new Prisma.Decimal("1.2500"),
    initiatedAt: at("2026-12-05T04:01:02.999Z"),
    expiresAt: at("2026-12-05T04:31:02.001Z"),
    clientSecretEnc: "v1.aes256gcm.abcdef0123456789",
    returnUrl: "https://shop.example/return?o=9",
    cancelUrl: "https://shop.example/cancel",
    locale: "fr",
    policyExpiresIn: 1800,
    policyUnderpaymentTolerance: new Prisma.Decimal("0.0150"),
    policyConfirmations: { BTC: 2 },
    policyLatePaymentPercent: new Prisma.Decimal("2.5000"),
    latePayment: { accepted: true },
    reversedAt: at("2026-12-06T00:00:00.001Z"),
    finalAt: at("2026-12-07T00:00:00.000Z"),
    createdAt: at("2026-12-05T04:00:00.123Z"),
    updatedAt: at("2026-12-05T04:00:00.456Z"),
  };
}

/** As initialize leaves it: every nullable column null. */
function initializedRow(): Transaction {
  const full = fullRow();
  const nulled = Object.fromEntries(Object.keys(full).map((column) => [column, null]));
  return {
    ...(nulled as unknown as Transaction),
    id: full.id,
    reference: full.reference,
    merchantId: full.merchantId,
    customerEmail: full.customerEmail,
    customerEmailKey: full.customerEmailKey,
    isLive: false,
    status: "INITIATED",
    initializedAmount: new Prisma.Decimal("100.00"),
    initializedCurrencyId: 2,
    requestMeta: {},
    createdAt: full.createdAt,
    updatedAt: full.createdAt,
  };
}

describe("a remembered row as text", () => {
  it.each([
    ["every column set", fullRow],
    ["as initialize leaves it", initializedRow],
  ])("reads back as the row it was (%s): decimals to the digit, dates to the millisecond, JSON columns whole", (_name, make) => {
    const row = make();
    const back = rowOfText(rowText(row));
    expect(Object.keys(back).sort()).toEqual(Object.keys(row).sort());
    for (const [column, value] of Object.entries(row)) {
      const read = (back as Record<string, unknown>)[column];
      if (Prisma.Decimal.isDecimal(value)) {
        expect(Prisma.Decimal.isDecimal(read), column).toBe(true);
        expect((read as Prisma.Decimal).toFixed(), column).toBe(value.toFixed());
      } else if (value instanceof Date) {
        expect(read, column).toBeInstanceOf(Date);
        expect((read as Date).toISOString(), column).toBe(value.toISOString());
      } else {
        expect(read, column).toEqual(value);
      }
    }
  });

  it("is one string far smaller than the row it stands for", () => {
    const text = rowText(initializedRow());
    expect(typeof text).toBe("string");
    expect(text.length).toBeLessThan(600);
  });

  it("is refused to another merchant, the other mode, and an id never remembered", () => {
    const memory = new InitiateMemory(60_000, () => 0);
    const row = initializedRow();
    memory.rememberInitialized(row);
    expect(memory.initialized(row.id, row.merchantId + 1, row.isLive)).toBeNull();
    expect(memory.initialized(row.id, row.merchantId, !row.isLive)).toBeNull();
    expect(memory.initialized("another-id", row.merchantId, row.isLive)).toBeNull();
    const found = memory.initialized(row.id, row.merchantId, row.isLive);
    expect(found?.initializedAmount.toFixed()).toBe("100");
    expect(found?.createdAt.getTime()).toBe(row.createdAt.getTime());
    memory.forgetTransaction(row.id);
    expect(memory.initialized(row.id, row.merchantId, row.isLive)).toBeNull();
  });
});
