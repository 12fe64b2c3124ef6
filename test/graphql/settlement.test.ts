// Settlement over GraphQL (issue 40; docs/settlement.md, docs/ledger.md): read only, secret key only, the
// key's merchant and mode only. Each query answers what REST answers for the same key, in the graph's
// names: forwarder settings, flushes, consolidations, recorded sweeps (one by id, null when another
// mode's or unknown) and the ledger's totals with the sweep fields; the core's refusals and messages.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { Prisma } from "../../src/db/generated/client.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
let merchant: NewMerchant;
const hash = () => `0x${randomUUID().replaceAll("-", "")}${randomUUID().replaceAll("-", "")}`;
const ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7";
const DESTINATION = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";

interface GraphReply {
  data?: any;
  errors?: { message: string; extensions: { code: string; status: number; reason: string; errors?: { field: string; message: string }[] } }[];
}

async function graph(key: string, query: string, variables: Record<string, unknown> = {}): Promise<GraphReply> {
  const res = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as GraphReply;
}

async function rest(path: string, key: string): Promise<any> {
  const res = await fetch(t.url + path, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status, path).toBe(200);
  return ((await res.json()) as { data: unknown }).data;
}

/** snake_case keys to the graph's camelCase, and states to its enums, as src/graphql/settlement.ts maps REST's objects. */
function camel(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((v) => camel(v));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !["object", "mode", "key_origin_missing"].includes(k))
        .map(([k, v]) => [k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), camel(v, k)]),
    );
  return key === "state" && typeof value === "string" ? value.toUpperCase() : value;
}

const SWEEP =
  "id isLive network txHash fromAddress transactionId destination coin amount fee feeCoin blockNumber blockHash minedAt topUp { txHash from amount fee } createdAt";
const FLUSH =
  "id isLive network state txHash feePayer gasUsed fee payments { transactionId forwarder moved { coin amount } } createdAt confirmedAt blockNumber blockHash reorganizations";
const CONSOLIDATION =
  "id isLive state coin network destination feeRate total networkFee amountToReceive inputs { transactionId outpoint amount } psbt txHash createdAt seenAt confirmedAt canceledAt";
const TOTALS =
  "coin network receipts received refunds refunded refundFees consolidations consolidated consolidationFees flushes flushed sweeps swept sweepFees ownSweepFees net";

function sweepRow(isLive: boolean, coin: string, amount: string, fee: string, topUpFee: string | null, at: Date) {
  return {
    id: `sw_${randomUUID()}`,
    merchantId: merchant.id,
    isLive,
    network: "ethereum",
    txHash: hash(),
    fromAddress: ADDRESS,
    transactionId: null,
    destination: DESTINATION,
    coin,
    amount: new Prisma.Decimal(amount),
    fee: new Prisma.Decimal(fee),
    blockNumber: 42n,
    blockHash: hash(),
    minedAt: at,
    topUpTxHash: topUpFee === null ? null : hash(),
    topUpFrom: topUpFee === null ? null : DESTINATION,
    topUpAmount: topUpFee === null ? null : new Prisma.Decimal("0.0001"),
    topUpFee: topUpFee === null ? null : new Prisma.Decimal(topUpFee),
    createdAt: at,
  };
}

let liveSweepId: string;

beforeAll(async () => {
  t = await startTestGateway();
  merchant = await t.merchant();
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 20, 12, minutes));
  await t.db.sweep.createMany({
    data: [
      sweepRow(false, "USDT", "25.000123", "0.000052", "0.000021", at(1)),
      sweepRow(false, "USDT", "40", "0.00005", "0.000021", at(2)),
      sweepRow(false, "ETH", "0.0123", "0.000021", null, at(3)),
    ],
  });
  const live = sweepRow(true, "ETH", "1", "0.000021", null, at(4));
  liveSweepId = live.id;
  await t.db.sweep.create({ data: live });
  await t.db.settlementSetting.create({
    data: { merchantId: merchant.id, network: "ethereum", isLive: false, mode: "forwarder", destination: DESTINATION, updatedAt: at(0) },
  });
  await t.db.forwarderFlush.create({
    data: {
      id: `fl_${randomUUID()}`,
      merchantId: merchant.id,
      isLive: false,
      network: "ethereum",
      state: "failed",
      factory: ADDRESS,
      feePayer: DESTINATION,
      nonce: 3n,
      txHash: hash(),
      rawTx: "0x02",
      createdAt: at(5),
    },
  });
  await t.db.consolidation.create({
    data: {
      id: `co_${randomUUID()}`,
      merchantId: merchant.id,
      isLive: false,
      coin: "LTC",
      network: "litecoin",
      state: "canceled",
      destination: "tltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kw7ky8l",
      feeRate: new Prisma.Decimal("2.5"),
      total: new Prisma.Decimal("0.5"),
      networkFee: new Prisma.Decimal("0.0000035"),
      amountToReceive: new Prisma.Decimal("0.4999965"),
      psbt: "cHNidP8B",
      txHash: hash().slice(2),
      createdAt: at(6),
      canceledAt: at(7),
    },
  });
});
afterAll(() => t?.close());

describe("settlement over GraphQL", () => {
  it("answers what REST answers for the same key: settings, flushes, consolidations, sweeps, one of each by id", async () => {
    const key = merchant.testSecretKey;
    // One field a request: graphql-armor's cost limit (1000) counts every field of every item.
    const data: Record<string, any> = {};
    for (const field of [
      "forwarderSettings { network isLive destination factory updatedAt }",
      `flushes { ${FLUSH} }`,
      `consolidations { ${CONSOLIDATION} }`,
      `sweeps(first: 10) { ${SWEEP} }`,
    ]) {
      const got = await graph(key, `{ ${field} }`);
      expect(got.errors, field).toBeUndefined();
      Object.assign(data, got.data);
    }
    const reply = { data };
    expect(reply.data.forwarderSettings).toEqual(camel(await rest("/v1/settlements/forwarders", key)));
    expect(reply.data.flushes).toEqual(camel(await rest("/v1/settlements/flushes", key)));
    expect(reply.data.flushes).toHaveLength(1);
    expect(reply.data.consolidations).toEqual(camel(await rest("/v1/settlements/consolidations", key)));
    expect(reply.data.consolidations).toHaveLength(1);
    const sweeps = await rest("/v1/settlements/sweeps?limit=100", key);
    expect(reply.data.sweeps).toEqual(camel(sweeps));
    expect(reply.data.sweeps.map((s: { coin: string }) => s.coin)).toEqual(["ETH", "USDT", "USDT"]);
    expect(reply.data.sweeps[1].topUp).toMatchObject({ fee: "0.000021", amount: "0.0001" });

    const [flush] = reply.data.flushes;
    const [consolidation] = reply.data.consolidations;
    const [sweep] = reply.data.sweeps;
    const one = await graph(
      key,
      `query($f: ID!, $c: ID!, $s: ID!) { flush(id: $f) { id state } consolidation(id: $c) { id state } sweep(id: $s) { id coin } }`,
      { f: flush.id, c: consolidation.id, s: sweep.id },
    );
    expect(one.data).toEqual({
      flush: { id: flush.id, state: "FAILED" },
      consolidation: { id: consolidation.id, state: "CANCELED" },
      sweep: { id: sweep.id, coin: "ETH" },
    });
    // Pages: first and after as REST's limit and starting_after.
    const page = await graph(key, `query($after: ID) { sweeps(first: 1, after: $after) { id } }`, { after: sweep.id });
    expect(page.data.sweeps).toEqual([{ id: reply.data.sweeps[1].id }]);
    expect((await graph(key, `{ sweeps(network: "bsc") { id } }`)).data.sweeps).toEqual([]);
  });

  it("shows the other mode nothing: its sweep is null by id and absent from the list", async () => {
    const test = await graph(merchant.testSecretKey, `query($id: ID!) { sweep(id: $id) { id } }`, { id: liveSweepId });
    expect(test.data).toEqual({ sweep: null });
    const live = await graph(merchant.liveSecretKey, `{ sweeps { id isLive } flushes { id } consolidations { id } forwarderSettings { network } }`);
    expect(live.data).toEqual({ sweeps: [{ id: liveSweepId, isLive: true }], flushes: [], consolidations: [], forwarderSettings: [] });
    const unknown = await graph(
      merchant.testSecretKey,
      `{ flush(id: "fl_nope") { id } consolidation(id: "co_nope") { id } sweep(id: "sw_nope") { id } }`,
    );
    expect(unknown.data).toEqual({ flush: null, consolidation: null, sweep: null });
  });

  it("the ledger's totals as REST's, with the sweeps on the coin's line and their fees on the network coin's", async () => {
    const key = merchant.testSecretKey;
    const reply = await graph(key, `{ ledgerTotals { ${TOTALS} } }`);
    expect(reply.errors).toBeUndefined();
    expect(reply.data.ledgerTotals).toEqual(camel((await rest("/v1/ledger/totals", key)).totals));
    expect(reply.data.ledgerTotals).toEqual([
      expect.objectContaining({ coin: "ETH", sweeps: 1, swept: "0.0123", sweepFees: "0.000123", ownSweepFees: "0.000042", net: "-0.000165" }),
      expect.objectContaining({ coin: "USDT", sweeps: 2, swept: "65.000123", sweepFees: "0", ownSweepFees: "0", net: "0" }),
    ]);
    const usdtOnly = await graph(key, `{ ledgerTotals(coin: "USDT", from: "2026-11-20", to: "2026-11-21", kind: "sweep") { coin sweeps } }`);
    // The filter picks entries; their fees still count on the fee coin's line.
    expect(usdtOnly.data.ledgerTotals).toEqual([
      { coin: "ETH", sweeps: 0 },
      { coin: "USDT", sweeps: 2 },
    ]);
  });

  it("refuses as the core does: bad parameters named, a public key, no key", async () => {
    const key = merchant.testSecretKey;
    const bad = await graph(key, `{ ledgerTotals(from: "2026-02-30") { coin } }`);
    expect(bad.errors?.[0]?.extensions).toMatchObject({ status: 400, reason: "invalid_list_parameter" });
    expect(bad.errors?.[0]?.extensions.errors).toEqual([
      { field: "from", message: "must be a day (2026-12-01, midnight UTC) or an ISO 8601 date-time with its offset (2026-12-01T09:30:00Z)" },
    ]);
    const first = await graph(key, `{ sweeps(first: 0) { id } }`);
    expect(first.errors?.[0]?.extensions).toMatchObject({ status: 400, reason: "invalid_list_parameter" });
    const network = await graph(key, `{ sweeps(network: "litecoin") { id } }`);
    expect(network.errors?.[0]?.extensions.errors).toEqual([
      { field: "network", message: "must be one of ethereum, bsc, base, polygon, arbitrum, tron" },
    ]);
    const onTron = await graph(key, `{ sweeps(network: "tron") { id } }`);
    expect([onTron.errors, onTron.data?.sweeps]).toEqual([undefined, []]);
    const cursor = await graph(key, `{ flushes(after: "fl_00000000-0000-4000-8000-000000000000") { id } }`);
    expect(cursor.errors?.[0]?.extensions).toMatchObject({ status: 400, reason: "unknown_cursor" });
    const publicKey = await graph(merchant.testPublicKey, `{ sweeps { id } }`);
    expect(publicKey.errors?.[0]?.extensions).toMatchObject({ status: 401 });
    const none = await graph("", `{ ledgerTotals { coin } }`);
    expect(none.errors?.[0]?.extensions).toMatchObject({ status: 401 });
  });
});
