// The merchant's settings pages (Webhooks, API keys, Wallets, Payment links) over the gateway's
// dashboard operations, which authorize the actor first (a viewer gets 403 role_forbidden). Lists
// answer the mode of `?mode=` only; changes take the mode the same way. Secrets (a rotated webhook
// secret, a rolled key) are in the answer of the change that made them, and nowhere else.
import { COIN_NETWORKS, networkName } from "../../../core/networks.ts";
import type { Router } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import type { ApiKeyView, OldKeyExpiry } from "../../../core/merchants/api-keys.ts";
import type { PaymentLinkView } from "../../../core/merchants/payment-links.ts";
import type { MerchantSettings } from "../../../core/webhooks/settings.ts";
import type { WalletPreview, WalletView } from "../../../core/merchants/wallets.ts";
import { accessOf, bodyOf, modeOf, sendData } from "../session.ts";

/** A body field that must be a string (the core checks its content); 400 naming it otherwise. */
/** An optional string field: absent or null is undefined; another type is refused. */
function optionalStringField(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw errors.invalidMerchantSettings(`${field} must be a string`);
  return value;
}

function stringField(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== "string") throw errors.invalidMerchantSettings(`${field} is required: give it as a string`);
  return value;
}

export function managementRoutes(router: Router, gateway: PaymentGateway): void {
  // Webhooks
  router.get("/settings", async (req, res) => {
    sendData(res, settingsBody(await gateway.merchants.settings(accessOf(gateway, res)), modeOf(req)));
  });

  router.put("/webhook-url", async (req, res) => {
    const mode = modeOf(req);
    const url = bodyOf(req).url;
    if (url !== null && typeof url !== "string") throw errors.invalidMerchantSettings("url must be an https URL, or null to remove it");
    const cleared = url === null || url.trim() === "";
    sendData(res, settingsBody(await gateway.merchants.setWebhookUrl(accessOf(gateway, res), mode, cleared ? null : url.trim()), mode));
  });

  router.post("/webhook-secret/rotate", async (_req, res) => {
    const rotated = await gateway.merchants.rotateWebhookSecret(accessOf(gateway, res));
    sendData(
      res,
      {
        webhook_secret: rotated.webhookSecret,
        rotated_at: rotated.rotatedAt.toISOString(),
        previous_secret_expires_at: rotated.previousSecretExpiresAt.toISOString(),
      },
      201,
    );
  });

  router.post("/webhook-test", async (req, res) => {
    const attempt = await gateway.merchants.sendTestEvent(accessOf(gateway, res), modeOf(req));
    const shown = { id: attempt.id, mode: attempt.mode, url: attempt.url, attempted_at: attempt.attemptedAt.toISOString(), ok: attempt.ok };
    // To a private target, whether it was delivered and nothing more (the core decides).
    if (attempt.detailsWithheld) return sendData(res, { ...shown, details_withheld: true });
    sendData(res, {
      ...shown,
      details_withheld: false,
      status_code: attempt.statusCode,
      latency_ms: attempt.latencyMs,
      response_body: attempt.responseBody,
      // The body of an answer from a private address is never shown (it may be an internal service's).
      response_body_withheld: attempt.privateAddress,
      error: attempt.error,
    });
  });

  // API keys
  router.get("/api-keys", async (req, res) => {
    const mode = modeOf(req);
    sendData(res, (await gateway.merchants.listApiKeys(accessOf(gateway, res))).filter((key) => key.mode === mode).map(apiKeyBody));
  });

  router.post("/api-keys/roll", async (req, res) => {
    const body = bodyOf(req);
    const rolled = await gateway.merchants.rollApiKey(accessOf(gateway, res), {
      mode: modeOf(req),
      kind: body.kind as "public" | "secret",
      oldExpires: body.old_expires as OldKeyExpiry,
    });
    sendData(
      res,
      {
        mode: rolled.mode,
        kind: rolled.kind,
        key: rolled.key,
        prefix: rolled.prefix,
        replaced: rolled.replaced.map((old) => ({ prefix: old.prefix, expires_at: old.expiresAt.toISOString() })),
      },
      201,
    );
  });

  // Wallets
  // The networks each coin is paid on (core/networks.ts), named for the mode: the page lists no networks of its own.
  router.get("/networks", (req, res) => {
    const isLive = modeOf(req) === "live";
    sendData(
      res,
      COIN_NETWORKS.map((row) => ({
        currency: row.coin,
        network: row.network,
        network_name: networkName(row.network, isLive),
        standard: row.standard,
      })),
    );
  });

  router.get("/wallets", async (req, res) => {
    const mode = modeOf(req);
    sendData(res, (await gateway.merchants.listWallets(accessOf(gateway, res))).filter((wallet) => wallet.mode === mode).map(walletBody));
  });

  router.post("/wallets/preview", async (req, res) => {
    const body = bodyOf(req);
    const request = {
      currency: stringField(body, "currency"),
      network: optionalStringField(body, "network"),
      mode: modeOf(req),
      extendedPublicKey: stringField(body, "extended_public_key"),
    };
    sendData(res, previewBody(await gateway.merchants.previewWallet(accessOf(gateway, res), request)));
  });

  router.put("/wallets/:currency", async (req, res) => {
    const body = bodyOf(req);
    const request = {
      currency: String(req.params.currency),
      network: optionalStringField(body, "network"),
      mode: modeOf(req),
      extendedPublicKey: stringField(body, "extended_public_key"),
    };
    sendData(res, walletBody(await gateway.merchants.setWallet(accessOf(gateway, res), request)));
  });

  // Payment links
  router.get("/payment-links", async (req, res) => {
    const mode = modeOf(req);
    sendData(res, (await gateway.merchants.listPaymentLinks(accessOf(gateway, res))).filter((link) => link.mode === mode).map(linkBody));
  });

  router.post("/payment-links", async (req, res) => {
    const created = await gateway.merchants.createPaymentLink(accessOf(gateway, res), modeOf(req));
    sendData(res, { slug: created.slug }, 201);
  });

  router.post("/payment-links/:slug/deactivate", async (req, res) => {
    sendData(res, linkBody(await gateway.merchants.deactivatePaymentLink(accessOf(gateway, res), String(req.params.slug))));
  });
}

function settingsBody(settings: MerchantSettings, mode: "test" | "live") {
  return {
    mode,
    kyb_status: settings.kybStatus,
    webhook_url: settings.webhookUrls[mode],
    webhook_secret: {
      rotated_at: settings.webhookSecret.rotatedAt?.toISOString() ?? null,
      previous_secret_expires_at: settings.webhookSecret.previousSecretExpiresAt?.toISOString() ?? null,
    },
  };
}

const apiKeyBody = (key: ApiKeyView) => ({
  id: key.id,
  kind: key.kind,
  mode: key.mode,
  prefix: key.prefix,
  status: key.status,
  created_at: key.createdAt.toISOString(),
  expires_at: key.expiresAt?.toISOString() ?? null,
  revoked_at: key.revokedAt?.toISOString() ?? null,
});

const walletBody = (wallet: WalletView) => ({
  currency: wallet.currency,
  network: wallet.network,
  network_name: wallet.networkName,
  mode: wallet.mode,
  extended_public_key: wallet.extendedPublicKey,
  next_index: wallet.nextIndex,
  unpaid_at_end: wallet.unpaidAtEnd,
  gap_warning: wallet.gapWarning,
});

const previewBody = (preview: WalletPreview) => ({
  currency: preview.currency,
  network: preview.network,
  mode: preview.mode,
  extended_public_key: preview.extendedPublicKey,
  addresses: preview.addresses,
});

const linkBody = (link: PaymentLinkView) => ({
  slug: link.slug,
  mode: link.mode,
  active: link.active,
  created_at: link.createdAt.toISOString(),
  transaction_count: link.transactionCount,
});
