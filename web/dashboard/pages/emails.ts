// Issue 44: the customer's e-mails of a transaction or an invoice with their state, or why none is sent
// (no PAYGATE_SMTP_URL). The transaction and invoice pages show this section.
import { h } from "../../shared/dom.ts";
import { messageOf } from "../api.ts";
import type { PageContext } from "../context.ts";
import { table, when } from "./parts.ts";

interface EmailRow {
  id: string;
  kind: string;
  recipient: string;
  state: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
  sent_at: string | null;
  created_at: string;
}

const EMAIL_KINDS: Record<string, string> = {
  receipt: "Receipt",
  pay_rest: "Pay the rest",
  refund_claim: "Refund claim link",
  invoice: "Invoice (PDF attached)",
  invoice_reminder: "Reminder",
  invoice_overdue: "Overdue reminder",
};

/** `path`: the API's list (`/transactions/:id/emails`, `/invoices/:id/emails`); `id` the heading's; `empty` what an empty list says. */
export async function emailsSection(ctx: PageContext, path: string, id: string, empty: string): Promise<HTMLElement> {
  const heading = h("h2", { id }, "E-mails to the customer");
  const data = await ctx.api
    .get<{ enabled: boolean; reason: string | null; emails: EmailRow[] }>(ctx.withMode(path))
    .catch((error: unknown) => ({ error: messageOf(error) }));
  const body: (Node | null)[] = [];
  if ("error" in data) body.push(h("p", { class: "alert", role: "alert" }, data.error));
  else {
    if (!data.enabled)
      body.push(h("p", { class: "alert", role: "status" }, "E-mail is off: PAYGATE_SMTP_URL is not set, so nothing is sent to customers."));
    body.push(
      data.emails.length === 0
        ? h("p", {}, empty)
        : table(
            "E-mails to the customer",
            ["Message", "To", "State", "Attempts", "Last error"],
            data.emails.map((m) => [
              EMAIL_KINDS[m.kind] ?? m.kind,
              m.recipient,
              m.state === "sent" && m.sent_at
                ? `sent ${when(m.sent_at)}`
                : m.state === "queued" && m.next_attempt_at
                  ? `queued, next try ${when(m.next_attempt_at)}`
                  : m.state,
              String(m.attempts),
              m.last_error ?? "—",
            ]),
          ),
    );
  }
  return h("section", { class: "card", "aria-labelledby": id }, heading, ...body);
}
