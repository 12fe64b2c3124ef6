// Merchants, their keys, wallets and payment links on Prisma. A merchant and everything it starts
// with are written in one database transaction; so are a change and its wallets.
import type { MerchantStore, WalletWrite } from "../../core/stores.ts";
import type { Database, DatabaseTransaction } from "../types.ts";

export function merchantStore(db: Database): MerchantStore {
  return {
    create: (merchant) =>
      db.$transaction(async (tx) => {
        const { apiKeys, wallets, ...fields } = merchant;
        const row = await tx.merchant.create({ data: { ...fields, apiKeys: { create: apiKeys } }, select: { id: true, name: true } });
        for (const wallet of wallets) await connectWallet(tx, row.id, wallet);
        return row;
      }),

    async update(id, { wallets, ...changes }) {
      try {
        return await db.$transaction(async (tx) => {
          const existing = await tx.merchant.findUnique({ where: { id }, select: { id: true } });
          if (!existing) return { ok: false, problem: "no_merchant" } as const;
          for (const wallet of wallets) {
            if (!(await connectWallet(tx, id, wallet))) throw new WalletTaken(wallet.currencyId);
          }
          const merchant = await tx.merchant.update({
            where: { id },
            data: changes,
            include: { paymentProcessors: { include: { currency: true, wallet: true }, orderBy: [{ isLive: "asc" }, { currencyId: "asc" }] } },
          });
          return { ok: true, merchant } as const;
        });
      } catch (error) {
        // Thrown inside, so that the wallets connected before it roll back.
        if (error instanceof WalletTaken) return { ok: false, problem: "wallet_taken", currencyId: error.currencyId };
        throw error;
      }
    },

    async createPaymentLink(merchantId, isLive, slug) {
      const merchant = await db.merchant.findUnique({ where: { id: merchantId }, select: { id: true } });
      if (!merchant) return null;
      return db.paymentLink.create({ data: { merchantId, isLive, slug }, select: { slug: true } });
    },
  };
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
  const scope = { merchantId, currencyId: wallet.currencyId, isLive: wallet.isLive };
  const existing = await tx.wallet.findUnique({ where: { currencyId_isLive_extendedPublicKey: wallet } });
  if (existing && existing.merchantId !== merchantId) return false;
  const row = existing ?? (await tx.wallet.create({ data: { ...scope, extendedPublicKey: wallet.extendedPublicKey } }));
  await tx.paymentProcessor.upsert({
    where: { merchantId_currencyId_isLive: scope },
    create: { ...scope, walletId: row.id },
    update: { walletId: row.id },
  });
  return true;
}
