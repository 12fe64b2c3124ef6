// The hot statements' way to the driver (src/db/direct-sql.ts) answers what Prisma's $queryRaw answers:
// the same columns, values and types for every kind of column the stores read, the same values
// written, and a unique violation as DuplicateKeyError. On PostgreSQL it is the pool; on PGlite,
// $queryRaw itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DuplicateKeyError } from "../../src/core/errors.ts";
import { queryDirect } from "../../src/db/direct-sql.ts";
import { Prisma } from "../../src/db/generated/client.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

describe("queryDirect", () => {
  it("reads numeric, timestamps, json, bigint, arrays and nulls as $queryRaw does", async () => {
    // On PostgreSQL the statements below take the pool's way, not Prisma's.
    expect(t.store.query !== undefined).toBe(t.store.url !== null);
    const at = new Date("2026-11-26T16:41:07.123Z");
    // Each kind of value as a parameter too: a Date, a Decimal, a bigint, an array, null.
    const statement = Prisma.sql`
      SELECT ${new Prisma.Decimal("150000.500000000000000001")}::numeric AS amount, NULL::numeric AS none,
        ${at}::timestamp(3) AS stamp, ${at}::timestamptz(3) AS stamped, '{"a":[1,"b"],"n":null}'::jsonb AS meta,
        ${123456789012345n}::bigint AS big, 7::int AS small, ${["x", "y"]}::text[] AS list, 'PENDING'::"TransactionStatus" AS status,
        true AS yes`;
    const raw = await t.db.$queryRaw<Record<string, unknown>[]>(statement);
    const direct = await queryDirect<Record<string, unknown>>(t.db, statement);
    expect(direct).toEqual(raw);
    expect(Object.keys(direct[0] ?? {})).toEqual(Object.keys(raw[0] ?? {}));
    const [row] = direct;
    expect(row?.amount).toBeInstanceOf(Prisma.Decimal);
    expect((row?.amount as Prisma.Decimal).toFixed()).toBe("150000.500000000000000001");
    expect(row?.stamp).toEqual(at);
    expect(row?.stamped).toEqual(at);
    expect(row?.meta).toEqual({ a: [1, "b"], n: null });
    expect(row?.big).toBe(123456789012345n);
    expect(row).toMatchObject({ none: null, small: 7, list: ["x", "y"], status: "PENDING", yes: true });
  });

  it("writes a Date as the same instant Prisma writes, and a unique violation is DuplicateKeyError", async () => {
    const at = new Date("2026-11-26T23:59:58.001Z");
    const [row] = await queryDirect<{ at: Date }>(t.db, Prisma.sql`SELECT ${at}::timestamp(3) AS at`);
    expect(row?.at.toISOString()).toBe(at.toISOString());
    const keys = await t.merchant();
    const insert = Prisma.sql`INSERT INTO merchant_default_networks (merchant_id, currency_id, is_live, network, updated_at)
      VALUES (${keys.id}, 4, false, 'bitcoin', ${at}) RETURNING updated_at AS "updatedAt"`;
    const [written] = await queryDirect<{ updatedAt: Date }>(t.db, insert);
    expect(written?.updatedAt.toISOString()).toBe(at.toISOString());
    const model = await t.db.merchantDefaultNetwork.findUnique({
      where: { merchantId_currencyId_isLive: { merchantId: keys.id, currencyId: 4, isLive: false } },
    });
    expect(model?.updatedAt.toISOString()).toBe(at.toISOString());
    await expect(queryDirect(t.db, insert)).rejects.toBeInstanceOf(DuplicateKeyError);
  });
});
