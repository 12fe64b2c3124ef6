// A merchant's webhook signing secrets and their rotation. Each mode signs with its own (issue 41):
// nothing done in test mode may show or rotate a secret that signs live deliveries. A new merchant
// has one secret that signs both (its `webhookSecret`, shown once); the first test-mode change that
// would show or rotate it gives test mode a new one, and a rotation of live mode's alone leaves test
// mode the old one. A rotation keeps the previous secret for 24 hours, and every delivery in that
// time carries a signature by each (Standard Webhooks allows several `v1,` signatures in one
// header), so a receiver can switch secrets without missing a delivery.
import { auditEntry, OPERATOR, type ChangeAuthor } from "../access/audit-log.ts";
import { errors } from "../errors.ts";
import type { Clock } from "../ports.ts";
import { newWebhookSecret, type SecretBox } from "../secrets.ts";
import type { MerchantStore, WebhookSecretScope } from "../stores/merchants.ts";
import type { Mode } from "../mode.ts";

/** How long the previous secret keeps signing after a rotation. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** One mode's signing secrets (sealed): what a delivery of that mode is signed with. */
export interface SealedWebhookSecrets {
  webhookSecretEnc: string;
  previousWebhookSecretEnc: string | null;
  previousWebhookSecretExpiresAt: Date | null;
}

/** What a merchant row holds: live mode's secrets, and test mode's own once it has them (null: live mode's sign test too). */
export interface MerchantWebhookSecrets extends SealedWebhookSecrets {
  testWebhookSecretEnc: string | null;
  testPreviousWebhookSecretEnc: string | null;
  testPreviousWebhookSecretExpiresAt: Date | null;
}

/** The secrets that sign a mode's deliveries to its first endpoint. */
export function modeSecrets(row: MerchantWebhookSecrets, mode: Mode): SealedWebhookSecrets {
  if (mode === "live" || row.testWebhookSecretEnc === null) return row;
  return {
    webhookSecretEnc: row.testWebhookSecretEnc,
    previousWebhookSecretEnc: row.testPreviousWebhookSecretEnc,
    previousWebhookSecretExpiresAt: row.testPreviousWebhookSecretExpiresAt,
  };
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

/** A mode's rotation may end the previous secret at once (null). */
export type RotatedModeSecret = Omit<RotatedWebhookSecret, "previousSecretExpiresAt"> & { previousSecretExpiresAt: Date | null };

type SecretDeps = { stores: { merchants: MerchantStore }; secrets: SecretBox; clock: Clock };

/**
 * The merchant's secret, rotated (the operator's `webhooks rotate-secret`, the dashboard's settings):
 * both modes sign with the new one, each keeping its previous one for 24 hours.
 */
export async function rotateWebhookSecret(deps: SecretDeps, merchantId: number, by: ChangeAuthor = OPERATOR): Promise<RotatedWebhookSecret> {
  const rotated = await rotate(deps, merchantId, "both", WEBHOOK_SECRET_OVERLAP_MS, by);
  return { ...rotated, previousSecretExpiresAt: new Date(rotated.rotatedAt.getTime() + WEBHOOK_SECRET_OVERLAP_MS) };
}

/**
 * One mode's secret, rotated (its first endpoint's rotate_secret): the other mode keeps signing with
 * what it had. `overlap` false: the previous one stops at once (a first endpoint made anew).
 */
export function rotateModeWebhookSecret(
  deps: SecretDeps,
  merchantId: number,
  mode: Mode,
  overlap: boolean,
  by: ChangeAuthor = OPERATOR,
): Promise<RotatedModeSecret> {
  return rotate(deps, merchantId, mode, overlap ? WEBHOOK_SECRET_OVERLAP_MS : 0, by);
}

async function rotate(
  deps: SecretDeps,
  merchantId: number,
  scope: WebhookSecretScope,
  overlapMs: number,
  by: ChangeAuthor,
): Promise<RotatedModeSecret> {
  const webhookSecret = newWebhookSecret();
  const rotatedAt = deps.clock.now();
  const overlap = overlapMs > 0;
  const previousSecretExpiresAt = overlap ? new Date(rotatedAt.getTime() + overlapMs) : null;
  const which = scope === "both" ? "signing secret" : `${scope} signing secret`;
  const detail = overlap ? `${which} (the previous one signs for 24 hours)` : `${which} (a new one)`;
  const audit = auditEntry(by, merchantId, rotatedAt, "webhook_secret.rotate", detail);
  const done = await deps.stores.merchants.rotateWebhookSecret(
    merchantId,
    scope,
    deps.secrets.seal(webhookSecret),
    rotatedAt,
    previousSecretExpiresAt,
    audit,
  );
  if (!done) throw errors.merchantNotFound(merchantId);
  return { merchantId, webhookSecret, rotatedAt, previousSecretExpiresAt };
}
