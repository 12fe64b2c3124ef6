// The e-mail sender's pass (issue 44): claims due messages (two instances never take one), makes
// their links, sends each once, and settles it: SENT, QUEUED again after a doubling wait, or FAILED
// when its attempts are spent. A message whose link can no longer be used is SKIPPED, not sent.
import type { Clock } from "../ports.ts";
import type { EmailMessageRecord } from "../records/email.ts";
import { randomToken, type SecretBox } from "../secrets.ts";
import type { EmailStore } from "../stores/email.ts";
import type { InvoiceDocument } from "../invoices/invoices.ts";
import { checkoutLink } from "../transactions/checkout.ts";
import { type EmailKind, EMAIL_KINDS, LINK_OF, localeOf } from "./kinds.ts";
import { type EmailRetryPolicy, type MailTransport, retryDelayMs } from "./ports.ts";

const BATCH = 50;

export interface EmailDeliverDeps {
  store: EmailStore;
  clock: Clock;
  secrets: SecretBox;
  publicUrl: string;
  transport: MailTransport;
  retry: EmailRetryPolicy;
  /** The invoice a message is about as its PDF shows it now; null when it no longer exists. */
  invoiceDocument: (message: EmailMessageRecord) => Promise<InvoiceDocument | null>;
}

export interface DeliveryCounts {
  sent: number;
  retried: number;
  failed: number;
  skipped: number;
}

/** One pass over the due messages; answers what became of them. */
export async function deliverDue(deps: EmailDeliverDeps): Promise<DeliveryCounts> {
  const counts: DeliveryCounts = { sent: 0, retried: 0, failed: 0, skipped: 0 };
  const now = deps.clock.now();
  const token = randomToken(24);
  const claimed = await deps.store.claimDue(now, new Date(now.getTime() - deps.retry.leaseMs), BATCH, token);
  for (const message of claimed) {
    const outcome = await deliverOne(deps, message, token);
    counts[outcome] += 1;
  }
  return counts;
}

async function deliverOne(deps: EmailDeliverDeps, m: EmailMessageRecord, token: string): Promise<keyof DeliveryCounts> {
  const attempt = m.attemptCount + 1;
  const kind = (EMAIL_KINDS as readonly string[]).includes(m.kind) ? (m.kind as EmailKind) : null;
  const link = kind === null ? { ok: false as const, why: `unknown kind ${m.kind}` } : await linkOf(deps, m, kind);
  if (kind === null || !link.ok) {
    await deps.store.settle(m.id, token, {
      state: "SKIPPED",
      attemptCount: m.attemptCount,
      nextAttemptAt: m.nextAttemptAt,
      lastError: link.ok ? null : link.why,
      sentAt: null,
    });
    return "skipped";
  }
  try {
    await deps.transport.send({
      id: m.id,
      kind,
      to: m.recipient,
      locale: localeOf(m.locale),
      isLive: m.isLive,
      facts: m.facts,
      link: link.url,
      invoice: link.invoice,
    });
  } catch (error) {
    const why = (error as Error).message.slice(0, 500);
    const spent = attempt >= deps.retry.maxAttempts;
    const at = deps.clock.now();
    await deps.store.settle(m.id, token, {
      state: spent ? "FAILED" : "QUEUED",
      attemptCount: attempt,
      nextAttemptAt: spent ? at : new Date(at.getTime() + retryDelayMs(deps.retry, attempt)),
      lastError: why,
      sentAt: null,
    });
    return spent ? "failed" : "retried";
  }
  const at = deps.clock.now();
  await deps.store.settle(m.id, token, { state: "SENT", attemptCount: attempt, nextAttemptAt: at, lastError: null, sentAt: at });
  return "sent";
}

type Link = { ok: true; url: string | null; invoice: InvoiceDocument | null } | { ok: false; why: string };

/** The link the kind carries, opened from its sealed secret now; refused when it can no longer be used. */
async function linkOf(deps: EmailDeliverDeps, m: EmailMessageRecord, kind: EmailKind): Promise<Link> {
  const needs = LINK_OF[kind];
  if (needs === null) return { ok: true, url: null, invoice: null };
  if (needs === "invoice") {
    // Paid or voided since it was queued: a reminder (or the invoice) would ask for what is not owed.
    const document = await deps.invoiceDocument(m);
    if (document === null || document.invoice.hosted_url === null) return { ok: false, why: "the invoice no longer exists" };
    if (document.invoice.state === "void" || document.invoice.state === "paid") return { ok: false, why: `the invoice is ${document.invoice.state}` };
    return { ok: true, url: document.invoice.hosted_url, invoice: document };
  }
  const sources = await deps.store.linkSources(m);
  if (needs === "checkout") {
    if (!sources.transactionOpen) return { ok: false, why: "the transaction no longer waits for payment" };
    if (sources.clientSecretEnc === null) return { ok: false, why: "the transaction has no checkout link" };
    return { ok: true, url: checkoutLink(deps.publicUrl, deps.secrets.open(sources.clientSecretEnc)).checkoutUrl, invoice: null };
  }
  if (sources.claimTokenEnc === null) return { ok: false, why: "the refund's claim link was used or is closed" };
  return { ok: true, url: `${deps.publicUrl}/refund/${deps.secrets.open(sources.claimTokenEnc)}`, invoice: null };
}
