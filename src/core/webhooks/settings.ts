// What the dashboard's Webhooks page reads and changes: the merchant's settings (never a secret), a
// webhook URL per mode, and a test event sent now to a mode's URL, signed and sent as deliveries are.
import type { CoreDeps } from "../deps.ts";
import { TEST_EVENT_TYPE } from "../events/catalog.ts";
import { errors } from "../errors.ts";
import type { WebhookAttemptResult } from "../ports.ts";
import { randomToken } from "../secrets.ts";
import type { KybStatus } from "../records/kyb.ts";
import type { ChangeAuthor } from "../access/audit-log.ts";
import { updateMerchant, type MerchantDeps } from "../merchants/merchants.ts";
import { checkedMode, type Mode } from "../mode.ts";
import { privateExceptions, shownResponseBody, type PrivateTargets } from "../private-targets.ts";
import { modeSecrets, signingSecrets } from "./secrets.ts";
import { namesPrivateHost } from "../merchants/webhook-url.ts";

export interface MerchantSettings {
  id: number;
  name: string;
  active: boolean;
  kybStatus: KybStatus;
  webhookUrls: Record<Mode, string | null>;
  /** The signing secret's rotation, never the secret: when it last changed, and until when the previous one still signs (null: it no longer does). */
  webhookSecret: { rotatedAt: Date | null; previousSecretExpiresAt: Date | null };
}

export async function merchantSettings(deps: Pick<CoreDeps, "stores" | "clock">, merchantId: number): Promise<MerchantSettings> {
  const row = await deps.stores.merchants.settings(merchantId);
  if (!row) throw errors.merchantNotFound(merchantId);
  const now = deps.clock.now();
  const overlap = row.previousWebhookSecretEnc && row.previousWebhookSecretExpiresAt && row.previousWebhookSecretExpiresAt > now;
  return {
    id: row.id,
    name: row.name,
    active: row.active,
    kybStatus: row.kybStatus,
    webhookUrls: { test: row.testWebhookUrl, live: row.liveWebhookUrl },
    webhookSecret: { rotatedAt: row.webhookSecretRotatedAt, previousSecretExpiresAt: overlap ? row.previousWebhookSecretExpiresAt : null },
  };
}

/** Sets (or with null or "" removes) one mode's URL, with the checks of merchant update (webhook-url.ts). */
export async function setWebhookUrl(
  deps: MerchantDeps & Pick<CoreDeps, "clock">,
  merchantId: number,
  mode: Mode,
  url: string | null,
  by?: ChangeAuthor,
): Promise<MerchantSettings> {
  const checked = checkedMode(mode);
  await updateMerchant(deps, merchantId, checked === "live" ? { liveWebhookUrl: url } : { testWebhookUrl: url }, by);
  return merchantSettings(deps, merchantId);
}

/** A test event's attempt, as the dashboard shows a delivery attempt. */
export interface TestEventAttempt extends WebhookAttemptResult {
  /** The `webhook-id` it was sent with (`evt_test_…`, which no payment event has). */
  id: string;
  mode: Mode;
  url: string;
  attemptedAt: Date;
  /** The exact body sent. */
  body: string;
}

/**
 * A test event as a dashboard user may see it. To a private or local target, only whether it was
 * delivered: its status, error text and latency would tell which of our network's ports are open
 * (a port scan one click at a time), unless the operator asked for them
 * (PAYGATE_WEBHOOK_TEST_EVENT_DETAILS). The body a private address answers is never shown.
 */
export type ShownTestEvent =
  | (TestEventAttempt & { detailsWithheld: false })
  | (Pick<TestEventAttempt, "id" | "mode" | "url" | "attemptedAt" | "body" | "ok"> & { detailsWithheld: true });

export function shownTestEvent(attempt: TestEventAttempt, settings: { details: boolean; privateTargets: PrivateTargets }): ShownTestEvent {
  // A private host the mode may reach could be probed; one it may not was refused before connecting,
  // and that refusal says what the operator can allow. Where the connection went counts too: a
  // public-looking name may resolve to a private address.
  const probable = namesPrivateHost(attempt.url) && privateExceptions(settings.privateTargets, attempt.mode) !== undefined;
  if (!settings.details && (attempt.privateAddress || probable)) {
    const { id, mode, url, attemptedAt, body, ok } = attempt;
    return { id, mode, url, attemptedAt, body, ok, detailsWithheld: true };
  }
  return { ...attempt, responseBody: shownResponseBody(attempt), detailsWithheld: false };
}

/**
 * Signs and POSTs a `webhook.test` event to the mode's URL now, through the deliveries' client and
 * with their signatures (both secrets during a rotation's overlap), and returns the attempt. Nothing
 * is stored and nothing retried.
 */
export async function sendTestEvent(
  deps: Pick<CoreDeps, "stores" | "clock" | "secrets" | "webhookSender">,
  merchantId: number,
  mode: Mode,
): Promise<TestEventAttempt> {
  const checked = checkedMode(mode);
  const row = await deps.stores.merchants.settings(merchantId);
  if (!row) throw errors.merchantNotFound(merchantId);
  const url = checked === "live" ? row.liveWebhookUrl : row.testWebhookUrl;
  if (!url) throw errors.webhookUrlMissing(checked);
  const sender = deps.webhookSender;
  if (!sender) throw new Error("The gateway was made without a webhook sender; test events cannot be sent");
  const attemptedAt = deps.clock.now();
  const id = `evt_test_${randomToken(24)}`;
  const body = JSON.stringify({
    event: TEST_EVENT_TYPE,
    data: {
      merchant_name: row.name,
      mode: checked,
      sent_at: attemptedAt.toISOString(),
      message: "A test event sent from paygate to check this endpoint; it is not a payment and needs no action.",
    },
  });
  const result = await sender.send({
    url,
    mode: checked,
    messageId: id,
    timestamp: attemptedAt,
    body,
    secrets: signingSecrets(modeSecrets(row, checked), attemptedAt, deps.secrets),
  });
  return { id, mode: checked, url, attemptedAt, body, ...result };
}
