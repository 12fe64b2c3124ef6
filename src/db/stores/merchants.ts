// Merchants, their keys, wallets and payment links on Prisma. A merchant and everything it starts
// with are written in one database transaction; so are a change and its wallets.
import { cryptoById } from "../../core/money/currencies.ts";
import { isNetworkSlug, networkOrDefault, type NetworkSlug } from "../../core/networks.ts";
import type { DefaultNetworkWrite, MerchantStore, WalletWrite, WebhookSecretScope } from "../../core/stores/merchants.ts";
import { Prisma } from "../generated/client.ts";
import type { Database, DatabaseTransaction } from "../types.ts";
import { auditRow } from "./audit-log.ts";

export function merchantStore(db: Database): MerchantStore {
  return {
    create: (merchant) =>
      db.$transaction(async (tx) => {
        const { apiKeys, wallets, ...fields } = merchant;
        const row = await tx.merchant.create({ data: { ...fields, apiKeys: { create: apiKeys } }, select: { id: true, name: true } });
        for (const wallet of wallets) await connectWallet(tx, row.id, wallet);
        return row;
      }),

    async update(id, { wallets, defaultNetworks = [], audit = [], ...changes }) {
      try {
        return await db.$transaction(async (tx) => {
          const existing = await tx.merchant.findUnique({ where: { id }, select: { id: true } });
          if (!existing) return { ok: false, problem: "no_merchant" } as const;
          for (const wallet of wallets) {
            if (!(await connectWallet(tx, id, wallet))) throw new WalletTaken(wallet.currencyId);
          }
          for (const setting of defaultNetworks) {
            // After the wallets of the same change: a wallet and the default on it may be set together.
            const processor = await tx.paymentProcessor.findUnique({
              where: { merchantId_currencyId_network_isLive: { merchantId: id, ...setting } },
              select: { id: true },
            });
            if (!processor) throw new NoWallet(setting);
            const key = { merchantId: id, currencyId: setting.currencyId, isLive: setting.isLive };
            await tx.merchantDefaultNetwork.upsert({
              where: { merchantId_currencyId_isLive: key },
              create: { ...key, network: setting.network },
              update: { network: setting.network },
            });
          }
          const merchant = await tx.merchant.update({
            where: { id },
            data: changes,
            include: { paymentProcessors: { include: { currency: true, wallet: true }, orderBy: [{ isLive: "asc" }, { currencyId: "asc" }] } },
          });
          if (audit.length > 0) await tx.auditLogEntry.createMany({ data: audit.map(auditRow) });
          return { ok: true, merchant } as const;
        });
      } catch (error) {
        // Thrown inside, so that the wallets connected before it roll back.
        if (error instanceof WalletTaken) return { ok: false, problem: "wallet_taken", currencyId: error.currencyId };
        if (error instanceof NoWallet) return { ok: false, problem: "no_wallet", setting: error.setting };
        throw error;
      }
    },

    defaultNetworks: async (merchantId) =>
      (
        await db.merchantDefaultNetwork.findMany({
          where: { merchantId },
          select: { currencyId: true, network: true, isLive: true },
          orderBy: [{ isLive: "asc" }, { currencyId: "asc" }],
        })
      ).flatMap((row) => (isNetworkSlug(row.network) ? [{ ...row, network: row.network }] : [])),

    defaultNetwork: async (merchantId, currencyId, isLive) =>
      (
        await db.merchantDefaultNetwork.findUnique({
          where: { merchantId_currencyId_isLive: { merchantId, currencyId, isLive } },
          select: { network: true },
        })
      )?.network ?? null,

    async createPaymentLink(merchantId, isLive, slug) {
      const merchant = await db.merchant.findUnique({ where: { id: merchantId }, select: { id: true } });
      if (!merchant) return null;
      return db.paymentLink.create({ data: { merchantId, isLive, slug }, select: { slug: true } });
    },

    settings: (merchantId) =>
      db.merchant.findUnique({
        where: { id: merchantId },
        select: {
          id: true,
          name: true,
          active: true,
          kybStatus: true,
          liveWebhookUrl: true,
          testWebhookUrl: true,
          webhookSecretEnc: true,
          webhookSecretRotatedAt: true,
          previousWebhookSecretEnc: true,
          previousWebhookSecretExpiresAt: true,
          testWebhookSecretEnc: true,
          testPreviousWebhookSecretEnc: true,
          testPreviousWebhookSecretExpiresAt: true,
        },
      }),

    async pricing(merchantId) {
      const row = await db.merchant.findUnique({ where: { id: merchantId }, select: { priceSpreadPercent: true, priceSources: true } });
      return row && { spreadPercent: row.priceSpreadPercent, sources: row.priceSources ?? [] };
    },

    setPricing: (merchantId, pricing, now, audit) =>
      db.$transaction(async (tx) => {
        const changed = await tx.$executeRaw`
          UPDATE merchants SET price_spread_percent = ${pricing.spreadPercent}::numeric, price_sources = ${pricing.sources}::text[], updated_at = ${now}
          WHERE id = ${merchantId}`;
        if (changed === 1) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return changed === 1;
      }),

    rotateWebhookSecret: (merchantId, scope, sealed, now, previousExpiresAt, audit) =>
      db.$transaction(async (tx) => {
        // One statement: the right-hand sides read the row as it was, so two rotations at once cannot lose a secret half-way.
        const changed = await tx.$executeRaw`
          UPDATE merchants SET ${rotationOf(scope, sealed, now, previousExpiresAt)}, updated_at = ${now}
          WHERE id = ${merchantId}`;
        if (changed === 1 && audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return changed === 1;
      }),

    async apiKeys(merchantId) {
      if (!(await exists(db, merchantId))) return null;
      return db.apiKey.findMany({
        where: { merchantId },
        select: { id: true, kind: true, isLive: true, prefix: true, createdAt: true, expiresAt: true, revokedAt: true },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      });
    },

    rollApiKey: (merchantId, { kind, isLive, newKey, oldExpiresAt, now, audit }) =>
      db.$transaction(async (tx) => {
        // The merchant's row lock serialises two rolls of one merchant, so neither misses the other's new key.
        const locked = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM merchants WHERE id = ${merchantId} FOR UPDATE`;
        if (locked.length === 0) return null;
        const usable = await tx.apiKey.findMany({
          where: { merchantId, kind, isLive, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
          select: { id: true, keyHash: true, prefix: true, expiresAt: true },
        });
        const ended = usable.map((key) => ({
          id: key.id,
          keyHash: key.keyHash,
          prefix: key.prefix,
          expiresAt: key.expiresAt && key.expiresAt < oldExpiresAt ? key.expiresAt : oldExpiresAt,
        }));
        for (const key of ended) await tx.apiKey.update({ where: { id: key.id }, data: { expiresAt: key.expiresAt } });
        await tx.apiKey.create({ data: { ...newKey, merchantId } });
        if (audit) await tx.auditLogEntry.create({ data: auditRow(audit) });
        return ended.map(({ keyHash, prefix, expiresAt }) => ({ keyHash, prefix, expiresAt }));
      }),

    walletKey: (walletId) => db.wallet.findUnique({ where: { id: walletId }, select: { extendedPublicKey: true, keyOrigin: true } }),

    walletByKey: (currencyId, isLive, extendedPublicKey, network) =>
      db.wallet.findUnique({
        where: {
          currencyId_network_isLive_extendedPublicKey: { currencyId, network: networkOfWallet(currencyId, network), isLive, extendedPublicKey },
        },
        select: { merchantId: true, nextIndex: true },
      }),

    async walletUsage(merchantId) {
      if (!(await exists(db, merchantId))) return null;
      const processors = await db.paymentProcessor.findMany({
        where: { merchantId },
        select: { currencyId: true, network: true, isLive: true, wallet: { select: { id: true, extendedPublicKey: true, nextIndex: true } } },
        orderBy: [{ isLive: "asc" }, { currencyId: "asc" }, { network: "asc" }],
      });
      return Promise.all(
        processors.map(async ({ currencyId, network, isLive, wallet }) => {
          // Served by the (wallet_id, derivation_index) unique index; a dropped receipt never arrived.
          const paid = await db.transaction.aggregate({
            where: { walletId: wallet.id, receipts: { some: { status: { not: "DROPPED" } } } },
            _max: { derivationIndex: true },
          });
          return {
            currencyId,
            network,
            isLive,
            extendedPublicKey: wallet.extendedPublicKey,
            nextIndex: wallet.nextIndex,
            highestPaidIndex: paid._max.derivationIndex,
          };
        }),
      );
    },

    async paymentLinks(merchantId) {
      if (!(await exists(db, merchantId))) return null;
      const links = await db.paymentLink.findMany({
        where: { merchantId },
        select: { ...LINK_FIELDS, _count: { select: { transactions: true } } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      });
      return links.map(({ _count, ...link }) => ({ ...link, transactionCount: _count.transactions }));
    },

    async deactivatePaymentLink(merchantId, slug) {
      const changed = await db.paymentLink.updateMany({ where: { merchantId, slug }, data: { active: false } });
      if (changed.count === 0) return null;
      const link = await db.paymentLink.findUniqueOrThrow({
        where: { slug },
        select: { ...LINK_FIELDS, _count: { select: { transactions: true } } },
      });
      const { _count, ...fields } = link;
      return { ...fields, transactionCount: _count.transactions };
    },
  };
}

const LINK_FIELDS = { id: true, slug: true, isLive: true, active: true, createdAt: true } as const;

async function exists(db: Database, merchantId: number): Promise<boolean> {
  return (await db.merchant.findUnique({ where: { id: merchantId }, select: { id: true } })) !== null;
}

class NoWallet extends Error {
  constructor(readonly setting: DefaultNetworkWrite) {
    super("no wallet on the default network");
  }
}

class WalletTaken extends Error {
  constructor(readonly currencyId: number) {
    super("wallet key belongs to another merchant");
  }
}

/**
 * Makes the wallet the one that receives this currency's payments; a key seen before keeps its
 * counter, so switching back never reuses an address. False when the key is another merchant's.
 */
async function connectWallet(tx: DatabaseTransaction, merchantId: number, wallet: WalletWrite): Promise<boolean> {
  const network = networkOfWallet(wallet.currencyId, wallet.network);
  const scope = { merchantId, currencyId: wallet.currencyId, network, isLive: wallet.isLive };
  const existing = await tx.wallet.findUnique({
    where: {
      currencyId_network_isLive_extendedPublicKey: {
        currencyId: wallet.currencyId,
        network,
        isLive: wallet.isLive,
        extendedPublicKey: wallet.extendedPublicKey,
      },
    },
  });
  if (existing && existing.merchantId !== merchantId) return false;
  const keyOrigin = wallet.keyOrigin === undefined ? {} : { keyOrigin: wallet.keyOrigin };
  const row = existing
    ? wallet.keyOrigin === undefined || existing.keyOrigin === wallet.keyOrigin
      ? existing
      : await tx.wallet.update({ where: { id: existing.id }, data: keyOrigin })
    : await tx.wallet.create({ data: { ...scope, extendedPublicKey: wallet.extendedPublicKey, ...keyOrigin } });
  await tx.paymentProcessor.upsert({
    where: { merchantId_currencyId_network_isLive: scope },
    create: { ...scope, walletId: row.id },
    update: { walletId: row.id },
  });
  return true;
}

/**
 * The network a wallet of `currencyId` is on: the one named, else the coin's default (core/networks.ts).
 * An unknown currency has no wallet: "" matches none.
 */
export function networkOfWallet(currencyId: number, network: string | undefined): NetworkSlug | "" {
  const coin = cryptoById(currencyId);
  return coin ? networkOrDefault(coin.slug, network) : "";
}

/**
 * The SET list of a rotation (core/stores/merchants.ts, rotateWebhookSecret). A null test secret
 * means test mode signs with live mode's: a live rotation first gives test mode live's old ones,
 * a merchant-wide one leaves it following live, a test one gives it its own.
 */
function rotationOf(scope: WebhookSecretScope, sealed: string, now: Date, previousExpiresAt: Date | null): Prisma.Sql {
  const live = Prisma.sql`previous_webhook_secret_enc = webhook_secret_enc, previous_webhook_secret_expires_at = ${previousExpiresAt}::timestamptz,
    webhook_secret_enc = ${sealed}, webhook_secret_rotated_at = ${now}::timestamptz`;
  if (scope === "test") {
    return Prisma.sql`test_previous_webhook_secret_enc = CASE WHEN ${previousExpiresAt}::timestamptz IS NULL THEN NULL
        ELSE COALESCE(test_webhook_secret_enc, webhook_secret_enc) END,
      test_previous_webhook_secret_expires_at = ${previousExpiresAt}::timestamptz,
      test_webhook_secret_enc = ${sealed},
      test_webhook_secret_rotated_at = CASE WHEN ${previousExpiresAt}::timestamptz IS NULL THEN NULL ELSE ${now}::timestamptz END`;
  }
  if (scope === "live") {
    return Prisma.sql`${live},
      test_webhook_secret_enc = COALESCE(test_webhook_secret_enc, webhook_secret_enc),
      test_webhook_secret_rotated_at = CASE WHEN test_webhook_secret_enc IS NULL THEN webhook_secret_rotated_at ELSE test_webhook_secret_rotated_at END,
      test_previous_webhook_secret_enc = CASE WHEN test_webhook_secret_enc IS NULL THEN previous_webhook_secret_enc ELSE test_previous_webhook_secret_enc END,
      test_previous_webhook_secret_expires_at = CASE WHEN test_webhook_secret_enc IS NULL THEN previous_webhook_secret_expires_at
        ELSE test_previous_webhook_secret_expires_at END`;
  }
  return Prisma.sql`${live},
    test_previous_webhook_secret_enc = test_webhook_secret_enc,
    test_previous_webhook_secret_expires_at = CASE WHEN test_webhook_secret_enc IS NULL THEN NULL ELSE ${previousExpiresAt}::timestamptz END,
    test_webhook_secret_rotated_at = CASE WHEN test_webhook_secret_enc IS NULL THEN NULL ELSE ${now}::timestamptz END,
    test_webhook_secret_enc = CASE WHEN test_webhook_secret_enc IS NULL THEN NULL ELSE ${sealed} END`;
}
