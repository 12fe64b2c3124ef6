// The webhook signing secret of a merchant (one for both modes: receivers verify with the secret they
// were shown, whatever the mode) and its rotation. A rotation keeps the previous secret for 24 hours,
// and every delivery in that time carries a signature by each (Standard Webhooks allows several
// `v1,` signatures in one header), so a receiver can switch secrets without missing a delivery.
import { auditEntry, OPERATOR, type ChangeAuthor } from "../dashboard/audit-log.ts";
import { errors } from "../errors.ts";
import type { Clock } from "../ports.ts";
import { newWebhookSecret, type SecretBox } from "../secrets.ts";
import type { MerchantStore } from "../stores/merchants.ts";

/** How long the previous secret keeps signing after a rotation. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** What a merchant row holds of its signing secrets (sealed). */
export interface SealedWebhookSecrets {
  webhookSecretEnc: string;
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
}

/** The secrets a delivery made at `now` is signed with: the current one, then the previous one while it is valid. */
export function signingSecrets(row: SealedWebhookSecrets, now: Date, box: SecretBox): string[] {
  const secrets = [box.open(row.webhookSecretEnc)];
  if (row.previousWebhookSecretEnc && row.previousWebhookSecretExpiresAt && now < row.previousWebhookSecretExpiresAt) {
    secrets.push(box.open(row.previousWebhookSecretEnc));
  }
  return secrets;
}

/** A rotation's result: the new secret, shown once, and until when the previous one still signs. */
export interface RotatedWebhookSecret {
  merchantId: number;
  webhookSecret: string;
  rotatedAt: Date;
  previousSecretExpiresAt: Date;
}

export async function rotateWebhookSecret(
  deps: { stores: { merchants: MerchantStore }; secrets: SecretBox; clock: Clock },
  merchantId: number,
  by: ChangeAuthor = OPERATOR,
): Promise<RotatedWebhookSecret> {
  const webhookSecret = newWebhookSecret();
  const rotatedAt = deps.clock.now();
  const previousSecretExpiresAt = new Date(rotatedAt.getTime() + WEBHOOK_SECRET_OVERLAP_MS);
  const audit = auditEntry(by, merchantId, rotatedAt, "webhook_secret.rotate", "signing secret (the previous one signs for 24 hours)");
  const done = await deps.stores.merchants.rotateWebhookSecret(
    merchantId,
    deps.secrets.seal(webhookSecret),
    rotatedAt,
    previousSecretExpiresAt,
    audit,
  );
  if (!done) throw errors.merchantNotFound(merchantId);
  return { merchantId, webhookSecret, rotatedAt, previousSecretExpiresAt };
}
