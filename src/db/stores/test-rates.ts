// Test mode's rates as an operator set them (table test_rates).
import type { StoredTestRate, TestRateStore } from "../../core/stores/test-rates.ts";
import { queryDirect } from "../direct-sql.ts";
import { Prisma } from "../generated/client.ts";
import type { Database } from "../types.ts";

export function testRateStore(db: Database): TestRateStore {
  const stored = (row: { cryptoSlug: string; fiatSlug: string; rate: { toString(): string }; updatedAt: Date }): StoredTestRate => ({
    crypto: row.cryptoSlug,
    fiat: row.fiatSlug,
    rate: row.rate.toString(),
    updatedAt: row.updatedAt,
  });
  return {
    // Raw SQL on the driver (direct-sql.ts): every test-mode initiate reads it, and a model query costs several times the CPU.
    async get(cryptoSlug, fiatSlug) {
      const [row] = await queryDirect<{ rate: { toString(): string } }>(
        db,
        Prisma.sql`SELECT rate FROM test_rates WHERE crypto_slug = ${cryptoSlug} AND fiat_slug = ${fiatSlug}`,
      );
      return row ? row.rate.toString() : null;
    },
    list: async () => (await db.testRate.findMany()).map(stored),
    async set(cryptoSlug, fiatSlug, rate) {
      const key = { cryptoSlug, fiatSlug };
      return stored(await db.testRate.upsert({ where: { cryptoSlug_fiatSlug: key }, create: { ...key, rate }, update: { rate } }));
    },
  };
}
