// One transaction (/dashboard/transaction?id=…): its fields, the locked quote, the receipts at its
// address, and the timeline of its webhook events, each with its delivery attempts (time, URL,
// status, latency, the start of the response). A role that manages webhooks can redeliver an event.
import { h, replace } from "../../shared/dom.ts";
import { fiat } from "../../shared/format.ts";
import { messageOf } from "../api.ts";
import { emailsSection } from "./emails.ts";
import type { PageContext } from "../context.ts";
import { when } from "./parts.ts";
import { refundsSection } from "./refunds.ts";
import { STATUS_LABELS, type TransactionRow } from "./transactions.ts";

interface Attempt {
  attempted_at: string;
  url: string;
  status_code: number | null;
  latency_ms: number;
  response_body: string | null;
  /** The answer came from a private address: its body was not kept. */
  response_body_withheld: boolean;
  error: string | null;
  succeeded: boolean;
  trigger: "schedule" | "manual";
  /** The receiver's Retry-After as sent, when it gave one. */
  retry_after?: string;
}

interface EventItem {
  id: string;
  type: string;
  created_at: string;
  state: "PENDING" | "DELIVERED" | "FAILED" | "SKIPPED";
  attempt_count: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
  attempts: Attempt[];
}

interface Detail extends TransactionRow {
  description: string | null;
  amount_unconfirmed: string | null;
  payment_address: string | null;
  refund_address: string | null;
  initiated_at: string | null;
  expires_at: string | null;
  updated_at: string;
  quote: {
    rate: string;
    market_rate: string;
    spread_percent: string;
    source: string;
    quoted_at: string;
    sources?: { provider: string; rate: string | null; used: boolean; reason: string | null; detail: string | null }[];
  } | null;
  /** The per-payment policies given at initialize; null values: the operator's. */
  policies: {
    expires_in: number | null;
    underpayment_tolerance: string | null;
    confirmations: Record<string, number> | null;
    late_payment: {
      accept_if_rate_moved_below: string;
      decision: { accepted: boolean; locked_rate: string; market_rate: string; moved_percent: string; checked_at: string } | null;
    } | null;
  };
  payment: { state: string; confirmations: number | null; required_confirmations: number | null } | null;
  /** When the payment left the chain after the transaction succeeded (payment.reversed); null: never. */
  reversed_at: string | null;
  receipts: {
    tx_hash: string | null;
    key: string;
    amount: string;
    confirmations: number;
    status: "SEEN" | "CONFIRMED" | "DROPPED" | "REVERSED";
    replaceable: boolean;
    first_seen_at: string;
  }[];
  events: EventItem[];
}

interface Redelivered {
  state: EventItem["state"];
  attempt: Attempt | null;
}

const EVENT_STATES: Record<EventItem["state"], string> = {
  PENDING: "Waiting for its next attempt",
  DELIVERED: "Delivered",
  FAILED: "Failed: no retries left",
  SKIPPED: "Not sent: no webhook URL for this mode",
};

/** How much of a response the page shows at first (the service keeps its first 1 KiB). */
const RESPONSE_SHOWN = 200;

export async function renderTransaction(ctx: PageContext, main: HTMLElement): Promise<void> {
  const id = new URLSearchParams(location.search).get("id") ?? "";
  const back = h("p", {}, h("a", { href: ctx.href("/transactions"), "data-route": "" }, "← All transactions"));
  if (!id) {
    replace(main, h("h1", {}, "Transaction"), h("p", {}, "No transaction was chosen."), back);
    return;
  }
  const t = await ctx.api.get<Detail>(ctx.withMode(`/transactions/${encodeURIComponent(id)}`)).catch((error: unknown) => {
    replace(main, h("h1", {}, "Transaction"), h("p", { class: "alert", role: "alert" }, messageOf(error)), back);
    return null;
  });
  if (!t) return;
  const reload = () => renderTransaction(ctx, main);
  replace(
    main,
    h("h1", {}, "Transaction ", h("code", {}, t.reference)),
    back,
    fields(t),
    quote(t),
    policies(t),
    receipts(t),
    // Issue 26: only a transaction that received money can be refunded (or has refunds).
    t.amount_paid !== null && Number(t.amount_paid) > 0 ? refundsSection(ctx, t) : null,
    await emailsSection(ctx, `/transactions/${encodeURIComponent(id)}/emails`, "tx-emails", "No e-mails for this transaction."),
    h("h2", {}, "Webhook events"),
    t.events.length === 0
      ? h("p", {}, "No webhook events (they are kept 30 days).")
      : h("ol", { class: "timeline" }, ...t.events.map((event) => eventItem(ctx, event, reload))),
  );
}

function list(entries: [string, Node | string | null][]): HTMLElement {
  return h("dl", { class: "fields" }, ...entries.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value ?? "—")]));
}

function fields(t: Detail): HTMLElement {
  return h(
    "section",
    { class: "card", "aria-labelledby": "tx-fields" },
    h("h2", { id: "tx-fields" }, "Details"),
    list([
      ["Status", STATUS_LABELS[t.status]],
      ["Reversed", t.reversed_at && `${when(t.reversed_at)}: the payment left the chain after it was counted (payment.reversed)`],
      ["Mode", t.is_live ? "Live" : "Test"],
      ["Amount", t.currency ? fiat(t.amount, t.currency) : t.amount],
      ["Customer", t.customer_name ? `${t.customer_name} <${t.customer_email}>` : t.customer_email],
      ["Description", t.description],
      ["Id", h("code", {}, t.id)],
      ["Created", when(t.created_at)],
      ["Expires", t.expires_at && when(t.expires_at)],
      ["Paid in", t.payment_currency],
      ["Amount due", t.payment_amount && `${t.payment_amount} ${t.payment_currency ?? ""}`],
      ["Amount paid (confirmed)", t.amount_paid && `${t.amount_paid} ${t.payment_currency ?? ""}`],
      ["Amount unconfirmed", t.amount_unconfirmed && `${t.amount_unconfirmed} ${t.payment_currency ?? ""}`],
      [
        "Confirmations",
        t.payment?.required_confirmations
          ? `${t.payment.confirmations ?? t.payment.required_confirmations} of ${t.payment.required_confirmations}`
          : null,
      ],
      ["Payment address", t.payment_address && h("code", {}, t.payment_address)],
      ["Refund address", t.refund_address && h("code", {}, t.refund_address)],
    ]),
  );
}

function quote(t: Detail): HTMLElement {
  return h(
    "section",
    { class: "card", "aria-labelledby": "tx-quote" },
    h("h2", { id: "tx-quote" }, "Locked quote"),
    t.quote
      ? list([
          ["Rate", `1 ${t.payment_currency ?? ""} = ${t.quote.rate} ${t.currency ?? ""}`],
          ["Market rate", `1 ${t.payment_currency ?? ""} = ${t.quote.market_rate} ${t.currency ?? ""}`],
          ["Spread", `${t.quote.spread_percent}%`],
          ["Source", t.quote.source],
          ["Quoted at", when(t.quote.quoted_at)],
          [
            "Providers",
            t.quote.sources && t.quote.sources.length > 0
              ? h(
                  "ul",
                  {},
                  ...t.quote.sources.map((s) =>
                    h("li", {}, `${s.provider}: ${s.rate ?? "no price"}${s.used ? " (used)" : ` (left out: ${s.reason ?? "unknown"})`}`),
                  ),
                )
              : null,
          ],
        ])
      : h("p", {}, "No quote yet: the customer has not chosen a coin."),
  );
}

/** The per-payment policies given at initialize; each one not given is the operator's setting. */
function policies(t: Detail): HTMLElement {
  const p = t.policies;
  const late = p.late_payment;
  const decision = late?.decision;
  return h(
    "section",
    { class: "card", "aria-labelledby": "tx-policies" },
    h("h2", { id: "tx-policies" }, "Payment policies"),
    list([
      ["Checkout window", p.expires_in === null ? "The service's default" : `${p.expires_in} seconds`],
      ["Underpayment tolerance", p.underpayment_tolerance === null ? "The service's default" : `${p.underpayment_tolerance}%`],
      [
        "Confirmations",
        p.confirmations === null
          ? "The service's default"
          : Object.entries(p.confirmations)
              .map(([coin, n]) => `${coin}: ${n}`)
              .join(", "),
      ],
      [
        "Late payment",
        late === null ? "Left to you (recorded as paid late)" : `Accepted when the rate moved less than ${late.accept_if_rate_moved_below}%`,
      ],
      [
        "Late payment decision",
        decision
          ? `${decision.accepted ? "Accepted" : "Recorded as late"}: the rate moved ${decision.moved_percent}% (${decision.locked_rate} → ${decision.market_rate}) on ${when(decision.checked_at)}`
          : null,
      ],
    ]),
  );
}

function receipts(t: Detail): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": "tx-receipts" },
    h("h2", { id: "tx-receipts" }, "Receipts"),
    t.receipts.length === 0
      ? h("p", {}, "Nothing has arrived at the payment address.")
      : h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            { class: "table" },
            h("caption", { class: "sr-only" }, "Receipts at the payment address"),
            h(
              "thead",
              {},
              h("tr", {}, ...["Transaction hash", "Amount", "Confirmations", "Status", "First seen"].map((c) => h("th", { scope: "col" }, c))),
            ),
            h(
              "tbody",
              {},
              ...t.receipts.map((r) =>
                h(
                  "tr",
                  {},
                  h("td", { "data-label": "Transaction hash" }, h("code", {}, r.tx_hash ?? r.key)),
                  h("td", { "data-label": "Amount" }, `${r.amount} ${t.payment_currency ?? ""}`),
                  h("td", { "data-label": "Confirmations" }, String(r.confirmations)),
                  h("td", { "data-label": "Status" }, receiptStatus(r)),
                  h("td", { "data-label": "First seen" }, when(r.first_seen_at)),
                ),
              ),
            ),
          ),
        ),
  );
}

/** A receipt's state in words; a replaceable one (BIP 125) says why it waits. */
function receiptStatus(r: Detail["receipts"][number]): string {
  const label = { SEEN: "Seen", CONFIRMED: "Confirmed", DROPPED: "Dropped", REVERSED: "Reversed (left the chain after it was counted)" }[r.status];
  return r.replaceable ? `${label}: replaceable (BIP 125), counted from its first confirmation` : label;
}

function eventItem(ctx: PageContext, event: EventItem, reload: () => Promise<void>): HTMLElement {
  const headingId = `event-${event.id}`;
  const status = h("p", { class: "hint", role: "status" });
  const state = [
    EVENT_STATES[event.state],
    event.delivered_at ? ` at ${when(event.delivered_at)}` : "",
    event.next_attempt_at ? `; next attempt ${when(event.next_attempt_at)}` : "",
  ].join("");
  return h(
    "li",
    { class: `card event event-${event.state.toLowerCase()}` },
    h("h3", { id: headingId, tabindex: "-1" }, h("code", {}, event.type), " ", h("time", { datetime: event.created_at }, when(event.created_at))),
    h("p", {}, state, " · ", h("code", {}, event.id)),
    event.attempts.length === 0 ? h("p", { class: "hint" }, "No delivery attempts yet.") : attemptsTable(event),
    ctx.can("manage_webhooks") ? redeliverButton(ctx, event, status, reload) : null,
    status,
  );
}

function attemptsTable(event: EventItem): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "table attempts" },
      h("caption", { class: "sr-only" }, `Delivery attempts of ${event.type}`),
      h("thead", {}, h("tr", {}, ...["Time", "URL", "Result", "Latency", "Response"].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        ...event.attempts.map((a) =>
          h(
            "tr",
            {},
            h("td", { "data-label": "Time" }, when(a.attempted_at), a.trigger === "manual" ? " (redelivery)" : ""),
            h("td", { "data-label": "URL" }, h("code", {}, a.url)),
            h("td", { "data-label": "Result", class: a.succeeded ? "ok" : "failed" }, resultOf(a)),
            h("td", { "data-label": "Latency" }, `${a.latency_ms} ms`),
            h("td", { "data-label": "Response" }, responseOf(a)),
          ),
        ),
      ),
    ),
  );
}

function resultOf(a: Attempt): string {
  const asked = a.retry_after === undefined ? "" : `; asked to retry after ${JSON.stringify(a.retry_after)}`;
  if (a.status_code !== null) return `HTTP ${a.status_code}${a.succeeded ? "" : ` (failed${asked})`}`;
  return `No response: ${a.error ?? "unknown error"}`;
}

function responseOf(a: Attempt): Node | string {
  if (a.response_body_withheld) return "Not kept: the answer came from a private or local address, which the dashboard never shows.";
  const body = a.response_body ?? "";
  if (!body) return "—";
  if (body.length <= RESPONSE_SHOWN) return h("code", { class: "response" }, body);
  return h("details", {}, h("summary", {}, h("code", { class: "response" }, `${body.slice(0, RESPONSE_SHOWN)}…`)), h("pre", {}, body));
}

function redeliverButton(ctx: PageContext, event: EventItem, status: HTMLElement, reload: () => Promise<void>): HTMLElement {
  const button = h("button", { type: "button", class: "button secondary" }, "Redeliver", h("span", { class: "sr-only" }, ` ${event.type}`));
  button.addEventListener("click", () => {
    void (async () => {
      button.disabled = true;
      status.textContent = "Sending…";
      try {
        const report = await ctx.api.post<Redelivered>(ctx.withMode(`/events/${encodeURIComponent(event.id)}/redeliver`));
        const message = redeliveryMessage(report);
        ctx.announce(message);
        await reload();
        // The page was drawn again: say it there too, beside the same event.
        const heading = document.getElementById(`event-${event.id}`);
        const again = heading?.closest("li")?.querySelector("[role=status]");
        if (again) again.textContent = message;
        heading?.focus();
      } catch (error) {
        status.textContent = messageOf(error);
        button.disabled = false;
      }
    })();
  });
  return button;
}

function redeliveryMessage(report: Redelivered): string {
  if (report.state === "DELIVERED") return `Redelivered: the receiver answered HTTP ${report.attempt?.status_code ?? "2xx"}`;
  if (report.state === "SKIPPED") return "Not sent: there is no webhook URL for this mode";
  if (!report.attempt) return "Queued: it is being sent";
  const why = report.attempt.status_code === null ? (report.attempt.error ?? "no response") : `HTTP ${report.attempt.status_code}`;
  return `Redelivery failed (${why})${report.state === "PENDING" ? "; it will be retried" : ""}`;
}
