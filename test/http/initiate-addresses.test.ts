// Wallet indexes under load (docs/wallets-and-chains.md): each handed out once, across racing
// initiates and two instances on one database; an index that a failed initiate took goes to the
// next one; a wallet never has more than 19 unused indexes below its next, so no gap reaches the
// gap limit of 20; and a lease that ran out cannot be used by its late holder.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DuplicateKeyError } from "../../src/core/errors.ts";
import { prismaStores } from "../../src/db/stores/index.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

let a: TestGateway;
let b: TestGateway;
beforeAll(async () => {
  a = await startTestGateway();
  b = await startTestGateway({ sameDatabaseAs: a });
});
afterAll(async () => {
  await b.close();
  await a.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
type Keys = Awaited<ReturnType<TestGateway["merchant"]>>;

async function initialize(keys: Keys, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await a.post(
      "/v1/transaction",
      initializeBody({ customer: { email: `c${i}@example.com` }, amount: "10" }),
      bearer(keys.testPublicKey),
    );
    expect(res.status).toBe(201);
    ids.push(res.body.data.id as string);
  }
  return ids;
}

const pay = (gateway: TestGateway, keys: Keys, id: string) =>
  gateway.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, bearer(keys.testSecretKey));

async function btcWallet(keys: Keys) {
  return a.db.wallet.findFirstOrThrow({ where: { merchantId: keys.id, currencyId: 4, isLive: false } });
}

/** The wallet's indexes: held by transactions, unused in its slots, and the next one. */
async function indexesOf(keys: Keys) {
  const wallet = await btcWallet(keys);
  const used = await a.db.transaction.findMany({ where: { walletId: wallet.id }, select: { derivationIndex: true, paymentAddress: true } });
  const slots = await a.db.walletIndexSlot.findMany({
    where: { walletId: wallet.id, derivationIndex: { not: null } },
    orderBy: { derivationIndex: "asc" },
  });
  return {
    walletId: wallet.id,
    used: used.map((t) => t.derivationIndex ?? -1),
    addresses: used.map((t) => t.paymentAddress),
    unused: slots.map((s) => s.derivationIndex ?? -1),
    next: wallet.nextIndex,
  };
}

/** Every index below the next is either a transaction's or unused in a slot, never both; at most 19 unused. */
function expectNoGap(indexes: Awaited<ReturnType<typeof indexesOf>>): void {
  const all = [...indexes.used, ...indexes.unused].sort((x, y) => x - y);
  expect(all).toEqual(Array.from({ length: indexes.next }, (_, i) => i));
  expect(indexes.unused.length).toBeLessThanOrEqual(19);
}

describe("wallet indexes", () => {
  it("gives 50 concurrent initiates over two instances 50 different indexes and addresses, without a gap", async () => {
    const keys = await a.merchant({ name: "Busy" });
    const ids = await initialize(keys, 50);
    const results = await Promise.all(ids.map((id, i) => pay(i % 2 ? a : b, keys, id)));
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 200));
    const indexes = await indexesOf(keys);
    expect(indexes.used.sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(new Set(indexes.addresses).size).toBe(50);
    expect(new Set(results.map((r) => r.body.data.payment_address)).size).toBe(50);
    expect(indexes.unused).toEqual([]);
    expectNoGap(indexes);
  });

  it("moves one of 50 racing initiates of one transaction, and the next initiates take the others' indexes, lowest first", async () => {
    const keys = await a.merchant({ name: "Raced" });
    const [id, ...later] = await initialize(keys, 6);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => pay(i % 2 ? a : b, keys, id!)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const refused of results.filter((r) => r.status !== 200)) {
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ message: "The transaction is not initiated", reason: "transaction_not_initiated" });
    }
    const raced = await indexesOf(keys);
    expect(raced.used).toHaveLength(1);
    expectNoGap(raced);

    for (const next of later) expect((await pay(a, keys, next)).status).toBe(200);
    const after = await indexesOf(keys);
    expectNoGap(after);
    // The later initiates took the lowest unused indexes, then new ones.
    const expected = [...raced.unused, ...Array.from({ length: 5 }, (_, i) => raced.next + i)].slice(0, 5);
    expect(after.used.filter((i) => !raced.used.includes(i)).sort((x, y) => x - y)).toEqual(expected);
  });

  it("answers 503 wallet_busy while all of a wallet's slots are leased, changes nothing, and works once they are free", async () => {
    const keys = await a.merchant({ name: "Full" });
    const [first, id] = await initialize(keys, 2);
    expect((await pay(a, keys, first!)).status).toBe(200); // makes the wallet's slots
    const { walletId } = await indexesOf(keys);
    await a.db.walletIndexSlot.updateMany({ where: { walletId }, data: { token: "someone", leasedUntil: new Date(Date.now() + 3_600_000) } });

    const res = await pay(a, keys, id!);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: "error",
      message: "Too many BTC payment addresses are being handed out at once; retry shortly",
      code: "upstream_unavailable",
      reason: "wallet_busy",
      errors: [],
    });
    expect(await a.db.transaction.findUniqueOrThrow({ where: { id: id! } })).toMatchObject({ status: "INITIATED", derivationIndex: null });
    expect((await indexesOf(keys)).next).toBe(1);

    // The leases run out (their holders went away): the next initiate goes through.
    await a.db.walletIndexSlot.updateMany({ where: { walletId }, data: { leasedUntil: new Date(Date.now() - 1000) } });
    expect((await pay(b, keys, id!)).status).toBe(200);
    expectNoGap(await indexesOf(keys));
  }, 20_000);

  it("gives an index whose lease ran out to the next lease, and refuses the late holder's move", async () => {
    const keys = await a.merchant({ name: "Late" });
    const [id] = await initialize(keys, 1);
    const { transactions } = prismaStores(a.db);
    const { walletId } = await indexesOf(keys);
    const t0 = new Date();
    const wallet = { merchantId: keys.id, currencyId: 4, isLive: false };
    const late = await transactions.leaseIndex(wallet, t0, new Date(t0.getTime() + 1000), 19);
    const taker = await transactions.leaseIndex(wallet, new Date(t0.getTime() + 2000), new Date(t0.getTime() + 60_000), 19);
    if (typeof late !== "object" || late === null || typeof taker !== "object" || taker === null) throw new Error("no lease");
    expect(taker.index).toBe(late.index);
    // The lease found the wallet from the merchant, currency and mode.
    expect([late.walletId, taker.walletId]).toEqual([walletId, walletId]);
    expect(await transactions.leaseIndex({ ...wallet, isLive: true }, t0, new Date(t0.getTime() + 1000), 19)).toBeNull();
    expect(taker.token).not.toBe(late.token);

    const transaction = await transactions.findFor(id!, keys.id, false);
    if (!transaction) throw new Error("no transaction");
    const fields = {
      paymentCurrencyId: 4,
      paymentAmount: "0.001",
      quoteRate: "10000",
      quoteSource: "test",
      quotedAt: t0,
      refundAddress: null,
      expiresAt: new Date(t0.getTime() + 3_600_000),
    };
    const move = { transaction, address: "tb1qlate", idempotency: null, now: t0, fields };
    expect(await transactions.moveToPending({ ...move, lease: late })).toBe("lease_lost");
    expect(await a.db.transaction.findUniqueOrThrow({ where: { id: id! } })).toMatchObject({ status: "INITIATED", derivationIndex: null });
    const moved = await transactions.moveToPending({ ...move, lease: taker, address: "tb1qtaker" });
    expect(moved).toMatchObject({ moved: { status: "PENDING", derivationIndex: taker.index, paymentAddress: "tb1qtaker" } });
    expect(await transactions.moveToPending({ ...move, lease: taker })).toBe("lease_lost");
    expectNoGap(await indexesOf(keys));
  });

  it("writes an Idempotency-Key with the move only: a key taken fails the move, a key taken by the winner of a race says so", async () => {
    const keys = await a.merchant({ name: "Keyed" });
    const [first, second] = await initialize(keys, 2);
    const { transactions } = prismaStores(a.db);
    const wallet = { merchantId: keys.id, currencyId: 4, isLive: false };
    const now = new Date();
    const lease = async (at = now, forMs = 60_000) => {
      const taken = await transactions.leaseIndex(wallet, at, new Date(at.getTime() + forMs), 19);
      if (typeof taken !== "object" || taken === null) throw new Error("no lease");
      return taken;
    };
    const read = async (id: string) => {
      const transaction = await transactions.findFor(id, keys.id, false);
      if (!transaction) throw new Error("no transaction");
      return transaction;
    };
    const fields = {
      paymentCurrencyId: 4,
      paymentAmount: "0.001",
      quoteRate: "10000",
      quoteSource: "test",
      quotedAt: now,
      refundAddress: null,
      expiresAt: new Date(now.getTime() + 3_600_000),
    };
    const key = (transactionId: string) => ({
      merchantId: keys.id,
      isLive: false,
      key: "order-7",
      operation: `initiate:${transactionId}`,
      fingerprint: "f",
    });
    const keyRows = () => a.db.idempotencyKey.findMany({ where: { merchantId: keys.id, key: "order-7" } });

    // A move that does not happen (its lease ran out and went to another) writes no key.
    const lost = await lease(now, 1000);
    const winner = await lease(new Date(now.getTime() + 2000));
    const stale = { transaction: await read(first!), address: "tb1qlost", idempotency: key(first!), now, fields };
    expect(await transactions.moveToPending({ ...stale, lease: lost })).toBe("lease_lost");
    expect(await keyRows()).toEqual([]);

    // The move writes its key in the same statement.
    const moved = await transactions.moveToPending({ ...stale, lease: winner, address: "tb1qwinner" });
    expect(moved).toMatchObject({ moved: { status: "PENDING", paymentAddress: "tb1qwinner" } });
    expect((await keyRows()).map((row) => row.transactionId)).toEqual([first]);

    // The same transaction again with the same key (a request that waited behind the winner): the key is taken.
    const behind = await lease();
    await expect(transactions.moveToPending({ ...stale, lease: behind, address: "tb1qbehind" })).rejects.toBeInstanceOf(DuplicateKeyError);
    // The same transaction without a key: the plain "not initiated".
    expect(await transactions.moveToPending({ ...stale, idempotency: null, lease: behind })).toBe("not_initiated");

    // Another transaction with the key taken: the statement fails and moves nothing; the lease stays held.
    const other = { transaction: await read(second!), address: "tb1qother", idempotency: key(first!), now, fields };
    await expect(transactions.moveToPending({ ...other, lease: behind })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await a.db.transaction.findUniqueOrThrow({ where: { id: second! } })).toMatchObject({ status: "INITIATED", paymentAddress: null });
    expect(await a.db.webhookEvent.count({ where: { transactionId: second!, type: "payment.pending" } })).toBe(0);
    expect(await transactions.moveToPending({ ...other, idempotency: null, lease: behind })).toMatchObject({
      moved: { paymentAddress: "tb1qother" },
    });
    expectNoGap(await indexesOf(keys));
  });

  it("leases with the read of an INITIATED transaction only, in the same statement", async () => {
    const keys = await a.merchant({ name: "Read and lease" });
    const [first, second] = await initialize(keys, 2);
    const { transactions } = prismaStores(a.db);
    const now = new Date();
    const window = { now, until: new Date(now.getTime() + 60_000) };
    // Initiate's read (findForInitiate) as the row and the lease it gives.
    const findRowAndLease = async (id: string, merchantId: number, isLive: boolean, coin: { currencyId: number }) => {
      const { row, lease } = await transactions.findForInitiate(id, merchantId, isLive, coin, window);
      return { row, lease };
    };
    const leasing = { currencyId: 4 };

    // The wallet's slots are made by its first lease, not by the read: nothing to lease yet.
    const before = await findRowAndLease(first!, keys.id, false, leasing);
    expect(before).toMatchObject({ row: { id: first, status: "INITIATED" }, lease: null });
    expect((await pay(a, keys, first!)).status).toBe(200);

    const { walletId } = await indexesOf(keys);
    const found = await findRowAndLease(second!, keys.id, false, leasing);
    expect(found.row).toEqual(await transactions.findRowFor(second!, keys.id, false));
    expect(found.lease).toMatchObject({ walletId, index: 1, slot: expect.any(Number), token: expect.any(String) });
    expect((await indexesOf(keys)).next).toBe(2);
    if (found.lease === null) throw new Error("no lease");
    await transactions.releaseIndex(found.lease);

    // A PENDING transaction, another merchant's, the other mode, a currency without a wallet: no lease.
    expect(await findRowAndLease(first!, keys.id, false, leasing)).toMatchObject({ row: { status: "PENDING" }, lease: null });
    expect(await findRowAndLease(second!, keys.id + 1000, false, leasing)).toEqual({ row: null, lease: null });
    expect(await findRowAndLease(second!, keys.id, true, leasing)).toEqual({ row: null, lease: null });
    expect(await findRowAndLease(second!, keys.id, false, { ...leasing, currencyId: 999 })).toMatchObject({
      row: { id: second },
      lease: null,
    });
    // The released index is the next one's; none was taken meanwhile.
    expect(await indexesOf(keys)).toMatchObject({ unused: [1], next: 2 });
    expect((await pay(a, keys, second!)).status).toBe(200);
    expect(await indexesOf(keys)).toMatchObject({ unused: [], next: 2 });
  });

  it("takes no index for an initiate refused before the move, and frees the one a request with a reused key took", async () => {
    const keys = await a.merchant({ name: "Refused" });
    const [first, second] = await initialize(keys, 2);
    const keyed = (id: string) =>
      a.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, { ...bearer(keys.testSecretKey), "idempotency-key": "pay-once" });
    expect((await keyed(first!)).status).toBe(200);

    // Not INITIATED any more: 422, and no index leased at all.
    const again = await pay(a, keys, first!);
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({ message: "The transaction is not initiated", reason: "transaction_not_initiated" });
    expect(await indexesOf(keys)).toMatchObject({ used: [0], unused: [], next: 1 });
    // The key of the first transaction's initiate, sent for the second: 409 after its read leased an index, which it frees.
    const reused = await keyed(second!);
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({
      message: "This Idempotency-Key was already used with other parameters; send a new key for a new request",
      code: "idempotency_conflict",
      reason: "idempotency_key_reused",
    });
    expect(await a.db.transaction.findUniqueOrThrow({ where: { id: second! } })).toMatchObject({ status: "INITIATED", derivationIndex: null });
    expect(await indexesOf(keys)).toMatchObject({ used: [0], unused: [1], next: 2 });
    // Free, so the next initiate takes it rather than a new index.
    expect((await pay(b, keys, second!)).status).toBe(200);
    expect(await indexesOf(keys)).toMatchObject({ unused: [], next: 2 });
    expectNoGap(await indexesOf(keys));
  });
});
