// The overdue pass (issue 44; docs/invoices.md): an open invoice whose due date has passed with something
// left gets invoice.overdue, once (one event of each type per invoice). Run by the expiry job on every
// instance: two passes at once write one event, the outbox's unique key skipping the second.
import type { CoreDeps } from "../deps.ts";
import { invoiceOverdueEvent } from "./events.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** How far back a due date is still looked at: an invoice past it when the service starts gets no late event. */
export const OVERDUE_LOOKBACK_DAYS = 60;
const PAGE = 200;

/** Writes invoice.overdue for the invoices that became overdue; answers how many. */
export async function writeOverdueEvents(deps: Pick<CoreDeps, "stores" | "clock" | "publicUrl">): Promise<number> {
  const now = deps.clock.now();
  const store = deps.stores.invoices;
  let afterId: string | null = null;
  let written = 0;
  for (;;) {
    const invoices = await store.openDueWithin({
      fromDay: new Date(now.getTime() - OVERDUE_LOOKBACK_DAYS * DAY_MS),
      // Due yesterday or before: the whole due day is the customer's (rules.ts, isPastDue).
      toDay: new Date(now.getTime() - DAY_MS),
      withoutEvent: "invoice.overdue",
      afterId,
      limit: PAGE,
    });
    const payments = await store.paymentsOf(invoices.map((i) => i.id));
    const events = invoices.flatMap((invoice) => {
      const event = invoiceOverdueEvent(
        invoice,
        payments.filter((p) => p.invoiceId === invoice.id),
        deps.publicUrl,
        now,
      );
      return event ? [event] : [];
    });
    written += await store.writeEvents(events);
    afterId = invoices.at(-1)?.id ?? null;
    if (invoices.length < PAGE) return written;
  }
}
