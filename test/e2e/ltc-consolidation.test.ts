// Consolidations on a real Litecoin Core node (regtest), issue 40: several payments paid by signed
// transactions and mined past their finality depth, consolidated into one PSBT (key origins of the
// wallet's descriptor setting, checked with the node's decodepsbt), signed with the merchant's test
// seed, finalised and broadcast by the node, mined, and seen by the settlement watcher (open → seen →
// confirmed); its outputs are not offered again. Every refusal with its status and message, nothing
// changed; the node down answers 503 naming it.
import { randomBytes } from "node:crypto";
import { HDKey } from "@scure/bip32";
import { Transaction as BtcTransaction } from "@scure/btc-signer";
import { base64, bech32 } from "@scure/base";
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { FUNDER, startLitecoind, type Litecoind } from "../support/litecoind.ts";
import { amountOf, watchedBy } from "./ltc.ts";
import { startE2eService, type E2eService } from "./service.ts";

const REQUIRED = 1;
const FINALITY = 2;
const SEED = randomBytes(32);
const master = HDKey.fromMasterSeed(SEED);
const FINGERPRINT = master.fingerprint.toString(16).padStart(8, "0");
const VPUB = serializeKey(master.derive("m/84'/1'/0'"), "vpub");

interface ConsolidationBody {
  id: string;
  state: string;
  coin: string;
  network: string;
  destination: string;
  fee_rate: string;
  total: string;
  network_fee: string;
  amount_to_receive: string;
  inputs: { transaction_id: string; outpoint: string; amount: string }[];
  psbt: string | null;
  tx_hash: string;
  key_origin_missing: string | null;
  seen_at: string | null;
  confirmed_at: string | null;
  canceled_at: string | null;
}
interface Reply {
  status: string;
  message?: string;
  errors?: { field: string; message: string }[];
  data?: ConsolidationBody | ConsolidationBody[];
}

let node: Litecoind;
let service: E2eService;

beforeAll(async () => {
  node = await startLitecoind();
  service = await startE2eService(
    {
      PAYGATE_LTC_TEST_NODE_URL: node.url,
      PAYGATE_LTC_TEST_CHAIN: "regtest",
      PAYGATE_CONFIRMATIONS_LTC: String(REQUIRED),
      PAYGATE_FINALITY_LTC: String(FINALITY),
    },
    ["LTC"],
  );
  await service.runtime.gateway.operator.updateMerchant(service.merchant.id, {
    wallets: [{ currency: cryptoBySlug("LTC") as CryptoCurrency, isLive: false, extendedPublicKey: `[${FINGERPRINT}/84'/1'/0']${VPUB}` }],
  });
}, 60_000);
afterAll(async () => {
  await service?.close();
  await node?.stop();
});

const call = async (method: string, route: string, body?: unknown): Promise<{ status: number; body: Reply }> => {
  const response = await fetch(`${service.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${service.merchant.testSecretKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Reply };
};
const consolidate = (body: unknown) => call("POST", "/v1/settlements/consolidations", body);
const consolidations = async () => (await call("GET", "/v1/settlements/consolidations")).body.data as ConsolidationBody[];

async function consolidationUntil(id: string, done: (c: ConsolidationBody) => boolean, what: string): Promise<ConsolidationBody> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = await call("GET", `/v1/settlements/consolidations/${id}`);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const c = got.body.data as ConsolidationBody;
    if (done(c)) return c;
    if (Date.now() > deadline) throw new Error(`consolidation ${id} did not reach ${what}: ${JSON.stringify(c)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A SUCCESSFUL LTC payment of `usd`, its output and its address's index. */
async function paidTransaction(usd: string) {
  const t = await watchedBy(node, "paygate", await service.initiate("LTC", usd));
  const txid = String(await node.send("sendtoaddress", [t.payment_address, amountOf(t).toFixed(8)], FUNDER));
  await service.until(t.id, (x) => x.receipts.length === 1, "its payment seen");
  await node.mine(REQUIRED);
  const paid = await service.until(t.id, (x) => x.status === "SUCCESSFUL", "SUCCESSFUL");
  const row = await service.runtime.database.db.transaction.findUniqueOrThrow({ where: { id: t.id }, select: { derivationIndex: true } });
  return { id: paid.id, txid, amount: amountOf(paid), index: row.derivationIndex as number };
}

async function finalAll(ids: string[]): Promise<void> {
  await node.mine(FINALITY);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const rows = await service.runtime.database.db.transaction.findMany({ where: { id: { in: ids } }, select: { finalAt: true } });
    if (rows.every((r) => r.finalAt !== null)) return;
    if (Date.now() > deadline) throw new Error("the payments did not become final");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** An address of Litecoin's public testnet (tltc1…): valid, but of another network than this regtest chain. */
const testnetAddress = () => bech32.encode("tltc", [0, ...bech32.toWords(randomBytes(20))]);

describe("LTC consolidations through the service on a regtest node", () => {
  it("refuses with nothing to consolidate before any payment is settled, and writes nothing", async () => {
    const refused = await consolidate({ coin: "LTC", destination: await node.newAddress(), fee_rate: "2" });
    expect([refused.status, refused.body.message]).toEqual([
      422,
      "Nothing to consolidate: no settled LTC on litecoin in test mode payment has an output that is unspent, unrefunded and in no other consolidation",
    ]);
    expect(await consolidations()).toEqual([]);
  });

  it("consolidates settled payments into a PSBT the seed signs; the watcher sees it mined; its outputs are not offered again", async () => {
    const small = await paidTransaction("0.8");
    const second = await paidTransaction("50");
    const third = await paidTransaction("40");
    await finalAll([small.id, second.id, third.id]);
    const destination = await node.newAddress();

    // Bad input: each refused with its field and message, nothing written.
    const wrongNetwork = testnetAddress();
    const refusals: [unknown, number, string, { field: string; message: string }[] | undefined][] = [
      [
        { coin: "ETH", destination, fee_rate: "2" },
        400,
        "Missing or invalid consolidation fields",
        [{ field: "coin", message: "coin must be BTC or LTC: only their outputs are spent together in one transaction" }],
      ],
      [
        { coin: "LTC", destination: wrongNetwork, fee_rate: "2" },
        400,
        "Missing or invalid consolidation fields",
        [
          {
            field: "destination",
            message: expect.stringMatching(/^destination is not a valid LTC address on litecoin for test mode/) as unknown as string,
          },
        ],
      ],
      [
        { coin: "LTC", destination, fee_rate: "0.5" },
        400,
        "Missing or invalid consolidation fields",
        [{ field: "fee_rate", message: "fee_rate must be from 1 to 10000 sat/vB, with at most 3 decimal places" }],
      ],
      [
        { coin: "LTC", destination, fee_rate: "10001" },
        400,
        "Missing or invalid consolidation fields",
        [{ field: "fee_rate", message: "fee_rate must be from 1 to 10000 sat/vB, with at most 3 decimal places" }],
      ],
      [
        { coin: "LTC", network: "bitcoin", destination, fee_rate: "2" },
        400,
        "Missing or invalid consolidation fields",
        [{ field: "network", message: "network must be one of litecoin for LTC" }],
      ],
      // The oldest output alone (0.01 LTC) at 10,000 sat/vB: its 110 vB fee takes more than it holds.
      [
        { coin: "LTC", destination, fee_rate: "10000", max_inputs: 1 },
        422,
        `The outputs hold ${small.amount.toFixed()} LTC; after the network fee of 0.011 LTC the destination would receive less than the dust limit of 0.00000294 LTC that nodes relay; choose a lower fee_rate or wait for more payments`,
        undefined,
      ],
    ];
    for (const [body, status, message, fieldErrors] of refusals) {
      const refused = await consolidate(body);
      expect([refused.status, refused.body.message], JSON.stringify(body)).toEqual([status, message]);
      if (fieldErrors) expect(refused.body.errors).toEqual(fieldErrors);
    }
    expect(await consolidations()).toEqual([]);

    // The two oldest settled outputs.
    const created = await consolidate({ coin: "LTC", destination, fee_rate: "5", max_inputs: 2 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const c = created.body.data as ConsolidationBody;
    expect([c.state, c.coin, c.network, c.destination, c.fee_rate, c.key_origin_missing]).toEqual([
      "open",
      "LTC",
      "litecoin",
      destination,
      "5",
      null,
    ]);
    expect(c.inputs.map((i) => i.transaction_id)).toEqual([small.id, second.id]);
    const total = small.amount.plus(second.amount);
    expect(c.total).toBe(total.toFixed());
    expect(new Decimal(c.network_fee).plus(c.amount_to_receive).toFixed()).toBe(total.toFixed());
    const psbt = c.psbt as string;

    const decoded = (await node.send("decodepsbt", [psbt])) as {
      tx: { txid: string; vin: { txid: string }[]; vout: { value: number; scriptPubKey: { addresses?: string[]; address?: string } }[] };
      inputs: { bip32_derivs: { master_fingerprint: string; path: string }[] }[];
      fee: number;
    };
    expect(decoded.tx.txid).toBe(c.tx_hash);
    expect(decoded.tx.vin.map((i) => i.txid)).toEqual([small.txid, second.txid]);
    expect(decoded.inputs.map((i) => i.bip32_derivs)).toEqual([
      [expect.objectContaining({ master_fingerprint: FINGERPRINT, path: `m/84'/1'/0'/0/${small.index}` })],
      [expect.objectContaining({ master_fingerprint: FINGERPRINT, path: `m/84'/1'/0'/0/${second.index}` })],
    ]);
    expect(decoded.tx.vout).toHaveLength(1);
    expect(decoded.tx.vout[0]?.scriptPubKey.addresses ?? [decoded.tx.vout[0]?.scriptPubKey.address]).toEqual([destination]);
    expect(new Decimal(decoded.tx.vout[0]?.value ?? 0).toFixed()).toBe(c.amount_to_receive);
    expect(new Decimal(decoded.fee).toFixed()).toBe(c.network_fee);

    // Offered once: a second request finds only the third payment's output.
    const next = await consolidate({ coin: "LTC", destination, fee_rate: "5" });
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    const other = next.body.data as ConsolidationBody;
    expect(other.inputs.map((i) => i.transaction_id)).toEqual([third.id]);
    // Canceled while open: its output is offered again; a second cancel is refused.
    const canceled = await call("POST", `/v1/settlements/consolidations/${other.id}/cancel`);
    expect([canceled.status, (canceled.body.data as ConsolidationBody).state, (canceled.body.data as ConsolidationBody).psbt]).toEqual([
      200,
      "canceled",
      null,
    ]);
    const again = await call("POST", `/v1/settlements/consolidations/${other.id}/cancel`);
    expect([again.status, again.body.message]).toEqual([409, "The consolidation is canceled, not open: only an open consolidation can be canceled"]);

    // The merchant's wallet signs it; the node broadcasts it under the id paygate gave.
    const unsigned = BtcTransaction.fromPSBT(base64.decode(psbt));
    expect(unsigned.sign(master as Parameters<BtcTransaction["sign"]>[0] & HDKey)).toBe(2);
    const finalized = (await node.send("finalizepsbt", [base64.encode(unsigned.toPSBT(0))])) as { hex: string; complete: boolean };
    expect(finalized.complete).toBe(true);
    await watchedBy(node, "paygate", { payment_address: destination } as Parameters<typeof watchedBy>[2]);
    expect(String(await node.send("sendrawtransaction", [finalized.hex]))).toBe(c.tx_hash);
    const seen = await consolidationUntil(c.id, (x) => x.state === "seen", "seen");
    expect([seen.psbt, seen.seen_at === null, seen.confirmed_at]).toEqual([null, false, null]);
    // Seen on the chain: no longer canceled by the merchant.
    const late = await call("POST", `/v1/settlements/consolidations/${c.id}/cancel`);
    expect([late.status, late.body.message]).toEqual([409, "The consolidation is seen, not open: only an open consolidation can be canceled"]);
    await node.mine(REQUIRED);
    const confirmed = await consolidationUntil(c.id, (x) => x.state === "confirmed", "confirmed");
    expect(confirmed.confirmed_at).not.toBeNull();
    // Each move told by a signed webhook about the consolidation (no transaction), once, in the Events API too.
    await expect
      .poll(() => service.consolidationEvents(c.id), { timeout: 20_000 })
      .toEqual(["settlement.consolidation.seen", "settlement.consolidation.confirmed"]);
    await expect.poll(() => service.consolidationEvents(other.id), { timeout: 20_000 }).toEqual(["settlement.consolidation.canceled"]);
    const told = await call("GET", "/v1/events?type=settlement.consolidation.confirmed");
    expect(
      (
        told.body.data as unknown as { subject: string | null; transaction: string | null; data: { data: { consolidation: ConsolidationBody } } }[]
      ).map((e) => [e.subject, e.transaction, e.data.data.consolidation.state, e.data.data.consolidation.tx_hash]),
    ).toEqual([[c.id, null, "confirmed", c.tx_hash]]);

    // Its outputs are spent by it for good: only the third payment's is offered.
    const last = await consolidate({ coin: "LTC", destination, fee_rate: "5" });
    expect(last.status, JSON.stringify(last.body)).toBe(201);
    expect((last.body.data as ConsolidationBody).inputs.map((i) => i.transaction_id)).toEqual([third.id]);
    const listed = await consolidations();
    expect(listed.map((x) => [x.id, x.state])).toEqual([
      [(last.body.data as ConsolidationBody).id, "open"],
      [other.id, "canceled"],
      [c.id, "confirmed"],
    ]);
    const gone = await call("POST", `/v1/settlements/consolidations/${(last.body.data as ConsolidationBody).id}/cancel`);
    expect(gone.status).toBe(200);

    // The node down: 503 naming it, nothing written.
    await node.halt();
    try {
      const down = await consolidate({ coin: "LTC", destination, fee_rate: "5" });
      expect(down.status).toBe(503);
      expect(down.body.message).toMatch(
        /^The LTC test node \(PAYGATE_LTC_TEST_NODE_URL\) cannot be asked which outputs are unspent \(.+\); nothing was created, retry once it answers$/,
      );
      expect(await consolidations()).toHaveLength(3);
    } finally {
      await node.startAgain();
    }
  }, 180_000);
});
