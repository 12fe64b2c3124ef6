// Initiate's group commit (src/db/stores/move-groups.ts): the moves to PENDING that wait for a
// statement slot are written together, each with its own conditions and outcome, row, freed slot,
// event and announcement exactly as a move alone; two moves of one transaction move it once; a lost
// lease fails only its own move; two moves of one address are refused together, then alone, and the
// second hears that the address is taken.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TransactionRecord } from "../../src/core/records/transactions.ts";
import type { IndexLease, PendingMove, TransactionStore } from "../../src/core/stores/transactions.ts";
import type { TransactionChange } from "../../src/core/stores/transaction-changes.ts";
import { DEFAULT_LIFECYCLE } from "../../src/core/policies.ts";
import type { GroupCommitOptions } from "../../src/db/stores/group-commit.ts";
import { type MoveCounts, moveGroups, type MoveWrite } from "../../src/db/stores/move-groups.ts";
import { moveAlone, moveWriteOf, transactionStore } from "../../src/db/stores/transactions.ts";
import { hearChanges, heardEvent, until } from "../support/changes.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { initializeBody } from "../support/builders.ts";

let t: TestGateway;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
let store: TransactionStore;
let heard: TransactionChange[];
let stopHearing: () => void;

beforeAll(async () => {
  t = await startTestGateway();
  keys = await t.merchant({ name: "Moving Goods" });
  store = transactionStore(t.db);
  ({ heard, stop: stopHearing } = await hearChanges(t));
});
afterAll(async () => {
  stopHearing();
  await t.close();
});

const ONE_AT_A_TIME: GroupCommitOptions = { inFlight: 1, maxGroup: 32, waitMs: 60_000 };
const BTC = 4;

async function initialized(): Promise<TransactionRecord> {
  const res = await t.post("/v1/transaction", initializeBody({ amount: "250.00" }), { authorization: `Bearer ${keys.testPublicKey}` });
  expect(res.status).toBe(201);
  const found = await store.findFor(res.body.data.id, keys.id, false);
  if (!found) throw new Error("not found");
  return found;
}

async function lease(): Promise<IndexLease> {
  const now = new Date();
  const leased = await store.leaseIndex({ merchantId: keys.id, currencyId: BTC, isLive: false }, now, new Date(now.getTime() + 60_000), 8);
  if (!leased || leased === "full") throw new Error(`no lease: ${leased}`);
  return leased;
}

/** A move as initiate makes it, with every optional field set unless told otherwise. */
function pendingMove(
  transaction: TransactionRecord,
  leased: IndexLease,
  overrides: Partial<PendingMove["fields"]> = {},
  address = `tb1qgroup${randomUUID().replaceAll("-", "").slice(0, 30)}`,
): PendingMove {
  const now = new Date(Date.UTC(2026, 11, 5, 7, 45, 0, 321));
  return {
    transaction,
    lease: leased,
    address,
    idempotency: null,
    now,
    fields: {
      paymentCurrencyId: BTC,
      paymentAmount: "0.002512345678901234",
      quoteRate: "99512.345678",
      quoteSource: "coingecko",
      quotedAt: new Date(now.getTime() - 1234),
      quoteSources: [{ provider: "coingecko", rate: "99512.345678", quotedAt: now.toISOString(), used: true, reason: null, detail: null }],
      quoteMarketRate: "99000.1",
      quoteSpreadPercent: "0.5",
      refundAddress: "tb1qrefund0000000000000000000000000000000",
      expiresAt: new Date(now.getTime() + 900_000),
      ...overrides,
    },
  };
}

const writeOf = (move: PendingMove) => moveWriteOf(move, DEFAULT_LIFECYCLE);

function countedAlone() {
  const calls: string[] = [];
  const alone = async (write: MoveWrite): Promise<MoveCounts> => {
    calls.push(write.move.transaction.id);
    return (await moveAlone(t.db, write))[0] ?? { moved: 0, held: 0, taken: 0 };
  };
  return { calls, alone };
}

async function rowsOf(ids: string[]) {
  const rows = await t.db.$queryRaw<Record<string, unknown>[]>`
    SELECT t.*, t.status::text AS status, e.type AS event_type, e.body AS event_body, e.created_at AS event_created_at
    FROM transactions t LEFT JOIN webhook_events e ON e.transaction_id = t.id AND e.type = 'payment.pending'
    WHERE t.id = ANY(${ids}::text[])`;
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id) ?? {});
}

async function slotOf(leased: IndexLease) {
  const [slot] = await t.db.$queryRaw<{ token: string | null; derivation_index: number | null }[]>`
    SELECT token, derivation_index FROM wallet_index_slots WHERE wallet_id = ${leased.walletId} AND slot = ${leased.slot}`;
  return slot;
}

describe("initiate's group commit", () => {
  it("writes the moves that wait for the slot in one statement, each as a move alone writes it", async () => {
    const { calls, alone } = countedAlone();
    const groups = moveGroups(t.db, alone, ONE_AT_A_TIME);
    const moves: PendingMove[] = [];
    for (let i = 0; i < 4; i++)
      moves.push(
        pendingMove(
          await initialized(),
          await lease(),
          i === 2 ? { quoteSources: null, quoteMarketRate: null, quoteSpreadPercent: null, refundAddress: null } : {},
        ),
      );
    const writes = moves.map(writeOf);
    const counts = await Promise.all(writes.map((w) => groups.write(w)));
    expect(counts).toEqual(moves.map(() => ({ moved: 1, held: 1, taken: 0 })));
    expect(calls).toEqual([moves[0]?.transaction.id]); // the first had the slot; three went together

    // The same moves, each alone, for a comparison column by column.
    const alones: PendingMove[] = [];
    for (const [i, m] of moves.entries()) alones.push(pendingMove(await initialized(), await lease(), m.fields, `${m.address.slice(0, 40)}b${i}`));
    for (const m of alones) expect(await moveAlone(t.db, writeOf(m))).toEqual([{ moved: 1, held: 1, taken: 0 }]);

    const grouped = await rowsOf(moves.map((m) => m.transaction.id));
    const single = await rowsOf(alones.map((m) => m.transaction.id));
    const comparable = (row: Record<string, unknown>) => {
      const {
        id: _i,
        reference: _r,
        payment_address: _a,
        derivation_index: _d,
        client_secret_enc: _c,
        created_at: _t,
        event_body: _b,
        ...rest
      } = row;
      return rest;
    };
    for (const [i, row] of grouped.entries()) {
      expect(comparable(row)).toEqual(comparable(single[i] as Record<string, unknown>));
      expect(row).toMatchObject({
        status: "PENDING",
        payment_address: moves[i]?.address,
        derivation_index: moves[i]?.lease.index,
        event_type: "payment.pending",
      });
      expect(row.event_body).toBe(writes[i]?.event.body);
      expect(await slotOf((moves[i] as PendingMove).lease)).toEqual({ token: null, derivation_index: null });
    }
    expect(String(grouped[0]?.payment_amount)).toBe("0.002512345678901234");
    expect((grouped[0]?.initiated_at as Date).toISOString()).toBe("2026-12-05T07:45:00.321Z");
    expect(grouped[0]?.quote_sources).toEqual(moves[0]?.fields.quoteSources);
    expect(grouped[2]).toMatchObject({ quote_sources: null, quote_market_rate: null, quote_spread_percent: null, refund_address: null });

    for (const m of moves) await until(() => heardEvent(heard, m.transaction.id));
  });

  it("two moves of one transaction in a group move it once: the other is not initiated and keeps its lease", async () => {
    const { alone } = countedAlone();
    const groups = moveGroups(t.db, alone, ONE_AT_A_TIME);
    const first = pendingMove(await initialized(), await lease());
    const transaction = await initialized();
    const a = pendingMove(transaction, await lease());
    const b = pendingMove(transaction, await lease());
    const counts = await Promise.all([first, a, b].map((m) => groups.write(writeOf(m))));
    expect(counts[0]).toEqual({ moved: 1, held: 1, taken: 0 });
    expect([counts[1], counts[2]]).toContainEqual({ moved: 1, held: 1, taken: 0 });
    expect([counts[1], counts[2]]).toContainEqual({ moved: 0, held: 1, taken: 0 });
    const loser = counts[1]?.moved === 0 ? a : b;
    expect((await slotOf(loser.lease))?.token).toBe(loser.lease.token);
    const events = await t.db.$queryRaw<{ type: string }[]>`SELECT type FROM webhook_events WHERE transaction_id = ${transaction.id} ORDER BY seq`;
    expect(events.map((e) => e.type)).toEqual(["payment.initiated", "payment.pending"]);
    const [row] = await rowsOf([transaction.id]);
    expect(row?.payment_address).toBe(counts[1]?.moved === 1 ? a.address : b.address);
  });

  it("a lease lost in a group fails only its own move", async () => {
    const { calls, alone } = countedAlone();
    const groups = moveGroups(t.db, alone, ONE_AT_A_TIME);
    const moves = [pendingMove(await initialized(), await lease()), pendingMove(await initialized(), await lease())];
    const leased = await lease();
    const lost = pendingMove(await initialized(), { ...leased, token: randomUUID() });
    const counts = await Promise.all([moves[0], lost, moves[1]].map((m) => groups.write(writeOf(m as PendingMove))));
    expect(counts).toEqual([
      { moved: 1, held: 1, taken: 0 },
      { moved: 0, held: 0, taken: 0 },
      { moved: 1, held: 1, taken: 0 },
    ]);
    expect(calls).toEqual([moves[0]?.transaction.id]);
    const [row] = await rowsOf([lost.transaction.id]);
    expect(row).toMatchObject({ status: "INITIATED", payment_address: null, event_type: null });
  });

  it("two moves of one address in a group are refused together, then go alone: the second hears the address taken", async () => {
    const { calls, alone } = countedAlone();
    const groups = moveGroups(t.db, alone, ONE_AT_A_TIME);
    const first = pendingMove(await initialized(), await lease());
    const address = `tb1qsame${randomUUID().replaceAll("-", "").slice(0, 30)}`;
    const a = pendingMove(await initialized(), await lease(), {}, address);
    const b = pendingMove(await initialized(), await lease(), {}, address);
    const counts = await Promise.all([first, a, b].map((m) => groups.write(writeOf(m))));
    expect(counts).toEqual([
      { moved: 1, held: 1, taken: 0 },
      { moved: 1, held: 1, taken: 0 },
      { moved: 0, held: 1, taken: 1 },
    ]);
    expect(calls).toEqual([first.transaction.id, a.transaction.id, b.transaction.id]);
  });

  it("through the API: concurrent initiates each move their own transaction to their own address, with their event", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push((await initialized()).id);
    const answers = await Promise.all(
      ids.map((id) => t.post(`/v1/transaction/${id}/pay`, { currency_id: String(BTC) }, { authorization: `Bearer ${keys.testSecretKey}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200));
    expect(answers.map((a) => a.body.data.id)).toEqual(ids);
    const addresses = answers.map((a) => a.body.data.payment_address as string);
    expect(new Set(addresses).size).toBe(16);
    const rows = await rowsOf(ids);
    for (const [i, row] of rows.entries()) {
      expect(row).toMatchObject({ status: "PENDING", payment_address: addresses[i], event_type: "payment.pending" });
      expect(String(row.payment_amount)).toBe(String(answers[i]?.body.data.payment_amount));
    }
  });
});
