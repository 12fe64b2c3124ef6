// Merchant accounts, their keys, payment links and wallets: what the dashboard would manage.
// The operator CLI is its only caller so far.
import type { Database, DatabaseTransaction } from "../../db/types.ts";
import { CRYPTO_CURRENCIES, type CryptoCurrency } from "../money/currencies.ts";
import type { PaymentRails } from "../ports.ts";
import { checkWebhookUrl } from "./webhook-url.ts";
import {
  hashKey,
  newPaymentLinkSlug,
  newPublicKey,
  newSecretKey,
  newWebhookSecret,
  type SecretBox,
} from "../secrets.ts";

export type KybStatus = "NONE" | "PENDING" | "VERIFIED" | "REJECTED";

export interface MerchantDeps {
  db: Database;
  rails: PaymentRails;
  secrets: SecretBox;
  /** PAYGATE_WEBHOOK_ALLOW_PRIVATE: live webhook URLs may point at private and loopback addresses. */
  allowPrivateWebhookUrls?: boolean;
}

/** Where each mode's events go; null removes the URL, undefined leaves it. */
export interface WebhookUrls {
  liveWebhookUrl?: string | null;
  testWebhookUrl?: string | null;
}

/** Everything a new merchant needs, secrets included: shown once, never stored in the clear. */
export interface NewMerchant {
  id: number;
  name: string;
  testPublicKey: string;
  testSecretKey: string;
  livePublicKey: string;
  liveSecretKey: string;
  webhookSecret: string;
}

export class MerchantInputError extends Error {}

export async function createMerchant(
  deps: MerchantDeps,
  input: { name: string; kybStatus?: KybStatus } & WebhookUrls,
): Promise<NewMerchant> {
  const name = input.name.trim();
  if (!name) throw new MerchantInputError("The merchant name must not be empty");
  const urls = checkedWebhookUrls(deps, input);
  const keys = {
    testPublicKey: newPublicKey("test"),
    testSecretKey: newSecretKey("test"),
    livePublicKey: newPublicKey("live"),
    liveSecretKey: newSecretKey("live"),
  };
  const webhookSecret = newWebhookSecret();
  return deps.db.$transaction(async (tx) => {
  const merchant = await tx.merchant.create({
    data: {
      name,
      kybStatus: input.kybStatus ?? "NONE",
      liveWebhookUrl: urls.liveWebhookUrl ?? null,
      testWebhookUrl: urls.testWebhookUrl ?? null,
      webhookSecretEnc: deps.secrets.seal(webhookSecret),
      apiKeys: {
        create: [
          apiKeyRow("PUBLIC", false, keys.testPublicKey),
          apiKeyRow("SECRET", false, keys.testSecretKey),
          apiKeyRow("PUBLIC", true, keys.livePublicKey),
          apiKeyRow("SECRET", true, keys.liveSecretKey),
        ],
      },
    },
  });
  // Test mode works at once: a fresh test-network account per currency.
  for (const currency of CRYPTO_CURRENCIES) {
    await connectWallet(tx, merchant.id, { currency, isLive: false, extendedPublicKey: deps.rails.createTestWallet(currency) });
  }
  return { id: merchant.id, name: merchant.name, ...keys, webhookSecret };
  });
}

function apiKeyRow(kind: "PUBLIC" | "SECRET", isLive: boolean, key: string) {
  // A secret key keeps only enough of itself to be recognised in a list.
  const prefix = kind === "PUBLIC" ? key : `${key.slice(0, 13)}…`;
  return { kind, isLive, prefix, keyHash: hashKey(key) };
}

export interface WalletSetting {
  currency: CryptoCurrency;
  isLive: boolean;
  extendedPublicKey: string;
}

export async function updateMerchant(
  deps: MerchantDeps,
  id: number,
  input: { active?: boolean; kybStatus?: KybStatus; wallets?: WalletSetting[] } & WebhookUrls,
) {
  const urls = checkedWebhookUrls(deps, input);
  for (const wallet of input.wallets ?? []) {
    const check = deps.rails.checkExtendedPublicKey(wallet.currency, wallet.isLive, wallet.extendedPublicKey);
    if (!check.ok) throw new MerchantInputError(`${wallet.currency.slug} wallet: ${check.reason}`);
  }
  return deps.db.$transaction(async (tx) => {
    const existing = await tx.merchant.findUnique({ where: { id } });
    if (!existing) throw new MerchantInputError(`No merchant with id ${id}`);
    for (const wallet of input.wallets ?? []) await connectWallet(tx, id, wallet);
    return tx.merchant.update({
      where: { id },
      data: {
        ...(input.active === undefined ? {} : { active: input.active }),
        ...urls,
        ...(input.kybStatus === undefined ? {} : { kybStatus: input.kybStatus }),
      },
      include: {
        paymentProcessors: {
          include: { currency: true, wallet: true },
          orderBy: [{ isLive: "asc" }, { currencyId: "asc" }],
        },
      },
    });
  });
}

/** Makes `wallet` the one that receives this currency's payments; a key seen before keeps its counter. */
async function connectWallet(tx: DatabaseTransaction, merchantId: number, wallet: WalletSetting): Promise<void> {
  const scope = { merchantId, currencyId: wallet.currency.id, isLive: wallet.isLive };
  const key = { currencyId: wallet.currency.id, isLive: wallet.isLive, extendedPublicKey: wallet.extendedPublicKey };
  const existing = await tx.wallet.findUnique({ where: { currencyId_isLive_extendedPublicKey: key } });
  if (existing && existing.merchantId !== merchantId) {
    throw new MerchantInputError(
      `${wallet.currency.slug} wallet: this key already belongs to another merchant; two merchants on one key would receive to the same addresses`,
    );
  }
  const row = existing ?? (await tx.wallet.create({ data: { ...scope, extendedPublicKey: wallet.extendedPublicKey } }));
  await tx.paymentProcessor.upsert({
    where: { merchantId_currencyId_isLive: scope },
    create: { ...scope, walletId: row.id },
    update: { walletId: row.id },
  });
}

export async function createPaymentLink(db: Database, merchantId: number, isLive: boolean): Promise<{ slug: string }> {
  const merchant = await db.merchant.findUnique({ where: { id: merchantId }, select: { id: true } });
  if (!merchant) throw new MerchantInputError(`No merchant with id ${merchantId}`);
  const link = await db.paymentLink.create({ data: { merchantId, isLive, slug: newPaymentLinkSlug() } });
  return { slug: link.slug };
}

/** Each URL checked against its mode's rules (src/core/merchants/webhook-url.ts), normalised. */
function checkedWebhookUrls(deps: MerchantDeps, input: WebhookUrls): WebhookUrls {
  const out: WebhookUrls = {};
  for (const [field, mode] of [["liveWebhookUrl", "live"], ["testWebhookUrl", "test"]] as const) {
    const url = input[field];
    if (url === undefined) continue;
    if (url === null || url === "") {
      out[field] = null;
      continue;
    }
    const check = checkWebhookUrl(url, mode, { allowPrivate: deps.allowPrivateWebhookUrls ?? false });
    if (!check.ok) throw new MerchantInputError(`${mode === "live" ? "Live" : "Test"} webhook URL '${url}' is refused: ${check.reason}`);
    out[field] = check.url;
  }
  return out;
}
