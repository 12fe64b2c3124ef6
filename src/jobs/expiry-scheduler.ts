// Closes checkout windows in the background, so a transaction is abandoned (and payment.abandoned
// sent) when its window ends, not when someone next reads it. State lives in the database
// (expires_at), so a restart loses nothing; several instances may run it at once, since each
// transaction can leave its open state only once (src/core/transactions/lifecycle.ts). The same
// tick forgets Idempotency-Keys older than 24 hours and webhook events older than 30 days, and writes
// invoice.overdue for invoices whose due date passed unpaid.
import type { PaymentGateway } from "../core/gateway.ts";
import type { ExpiryMetrics } from "../observability/hooks.ts";
import { Ticker } from "./ticker.ts";

const BATCH = 500;

export class ExpiryScheduler extends Ticker {
  constructor(
    private readonly gateway: PaymentGateway,
    intervalMs: number,
    log: (line: string) => void = () => {},
    private readonly metrics?: ExpiryMetrics,
  ) {
    super("expiry", intervalMs, log);
  }

  /** Abandons everything due now; returns how many. Forgets old Idempotency-Keys, events and dashboard sessions on the way. */
  async tick(): Promise<number> {
    await this.gateway.operator.pruneIdempotencyKeys();
    await this.gateway.operator.pruneWebhookEvents();
    await this.gateway.operator.pruneDashboardSessions();
    await this.gateway.invoices.writeOverdueEvents();
    let total = 0;
    for (;;) {
      const expired = await this.gateway.payments.expireDue(BATCH);
      total += expired.length;
      this.metrics?.transactionsExpired(expired);
      if (expired.length < BATCH) return total;
    }
  }
}
