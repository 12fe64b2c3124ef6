// Test mode's rates as an operator set them (table test_rates).
import type { StoredTestRate, TestRateStore } from "../../core/stores.ts";
import type { Database } from "../types.ts";

export function testRateStore(db: Database): TestRateStore {
  const stored = (row: { cryptoSlug: string; fiatSlug: string; rate: { toString(): string }; updatedAt: Date }): StoredTestRate => ({
    crypto: row.cryptoSlug,
    fiat: row.fiatSlug,
    rate: row.rate.toString(),
    updatedAt: row.updatedAt,
  });
  return {
    async get(cryptoSlug, fiatSlug) {
      const row = await db.testRate.findUnique({ where: { cryptoSlug_fiatSlug: { cryptoSlug, fiatSlug } }, select: { rate: true } });
      return row ? row.rate.toString() : null;
    },
    list: async () => (await db.testRate.findMany()).map(stored),
    async set(cryptoSlug, fiatSlug, rate) {
      const key = { cryptoSlug, fiatSlug };
      return stored(await db.testRate.upsert({ where: { cryptoSlug_fiatSlug: key }, create: { ...key, rate }, update: { rate } }));
    },
  };
}
