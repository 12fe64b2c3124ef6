// Recording sweeps end to end on anvil (issue 40; docs/settlement.md, Recording sweeps): a merchant
// with a known seed is paid two USDT payments (a USDT-like token whose `transfer` returns nothing) and
// one ETH payment; the sweep tool (its own process) sweeps them with real signed transactions and
// prints with --report the body paygate records; paygate reads each transaction from the node (from a
// payment address, what moved, its fee, the top-up's), records it once with a signed
// settlement.sweep.recorded, and the ledger shows it (entries, totals with sweep_fees and
// own_sweep_fees, the CSV). Every refusal with its status and message; one node for the file; both databases.
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import type { HDKey } from "@scure/bip32";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { toChecksumAddress } from "../../src/rails/wallets/addresses.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../src/rails/wallets/networks.ts";
import { DEV_ACCOUNT, type Anvil } from "../support/anvil.ts";
import { abiCall, signerOf } from "../support/forwarders.ts";
import { allVerifiedPayloads } from "../support/webhook-receiver.ts";
import { decimalOf, dueUnits } from "./evm.ts";
import { runSweepTool, secretFile, startSweepScene, sweepKeys, tprv } from "./sweep-tool.ts";
import type { E2eService, Transaction } from "./service.ts";

const keys = sweepKeys();
const { ethAccount, usdtAccount, destination, feeKey, feeWallet } = keys;
const unknownHash = `0x${randomBytes(32).toString("hex")}`;

let anvil: Anvil;
let service: E2eService;
let dir: string;
let usdt: Transaction[];
let eth: Transaction;
let paymentTx: string;
let stopped = false;
/** A payment address the refusals fund (funding: its top-up) and sign with. */
let payerAddress: string;
let funding: string;

type Reply = { status: number; body: any };

beforeAll(async () => {
  ({ anvil, service, dir, usdt, eth, paymentTx } = await startSweepScene(keys, "paygate-sweep-record-"));
});
afterAll(async () => {
  await service?.close();
  if (!stopped) await anvil?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, route: string, body?: unknown, key = service.merchant.testSecretKey): Promise<Reply> {
  const response = await fetch(`${service.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text };
}

const tool = runSweepTool;
const file = (name: string, text: string) => secretFile(dir, name, text);

/** The tool run as the merchant runs it: the plan from the API, --execute --report. */
async function sweep(coin: string, account: HDKey): Promise<{ network: string; sweeps: { tx_hash: string; top_up_tx_hash: string | null }[] }> {
  const run = await tool(
    [
      "--api",
      service.url,
      "--network",
      "ethereum",
      "--destination",
      destination,
      "--coin",
      coin,
      "--api-key-file",
      file(`api-${coin}`, service.merchant.testSecretKey),
    ].concat(["--key", "-", "--execute", "--rpc", anvil.url, "--fee-key", file(`fee-${coin}`, feeKey.toString("hex")), "--report"]),
    tprv(account),
  );
  expect([run.code, run.stderr]).toEqual([0, ""]);
  return JSON.parse(run.stdout);
}

/** What the node says a transaction cost: gas used × effective gas price, in ETH. */
async function feeOf(hash: string): Promise<string> {
  const r = (await anvil.send("eth_getTransactionReceipt", [hash])) as { gasUsed: string; effectiveGasPrice: string };
  return decimalOf(BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice), 18);
}

const sweepEvents = () =>
  allVerifiedPayloads(service.receiver, service.merchant.webhookSecret).filter((p) => p.event === "settlement.sweep.recorded");

describe("recording sweeps on anvil", () => {
  let usdtReport: { network: string; sweeps: { tx_hash: string; top_up_tx_hash: string | null }[] };
  let recorded: any[];

  it("records the USDT sweeps the tool reported: each read from the node with its top-up, one signed event each", async () => {
    usdtReport = await sweep("USDT", usdtAccount);
    expect(usdtReport.network).toBe("ethereum");
    // A transfer per address, each with the top-up that paid its gas (the margin left is too little to send on).
    expect(usdtReport.sweeps).toHaveLength(2);
    const got = await call("POST", "/v1/settlements/sweeps", usdtReport);
    expect(got.status, JSON.stringify(got.body)).toBe(201);
    expect(got.body.meta).toEqual({ recorded: 2, already_recorded: 0 });
    recorded = got.body.data;
    expect(recorded.map((s) => s.tx_hash)).toEqual(usdtReport.sweeps.map((s) => s.tx_hash));
    for (const [i, s] of recorded.entries()) {
      const t = usdt.find((x) => toChecksumAddress(x.payment_address) === s.from_address) as Transaction;
      const item = usdtReport.sweeps[i] as { tx_hash: string; top_up_tx_hash: string };
      const topUp = (await anvil.send("eth_getTransactionByHash", [item.top_up_tx_hash])) as { value: string };
      const block = (await anvil.send("eth_getTransactionReceipt", [s.tx_hash])) as { blockNumber: string; blockHash: string };
      expect(s).toEqual({
        id: expect.stringMatching(/^sw_[0-9a-f-]{36}$/),
        object: "sweep",
        is_live: false,
        network: "ethereum",
        tx_hash: item.tx_hash,
        from_address: toChecksumAddress(t.payment_address),
        transaction_id: t.id,
        destination,
        coin: "USDT",
        amount: decimalOf(dueUnits(t), 6),
        fee: await feeOf(s.tx_hash),
        fee_coin: "ETH",
        block_number: BigInt(block.blockNumber).toString(),
        block_hash: block.blockHash,
        mined_at: expect.any(String),
        top_up: { tx_hash: item.top_up_tx_hash, from: feeWallet, amount: decimalOf(BigInt(topUp.value), 18), fee: await feeOf(item.top_up_tx_hash) },
        created_at: expect.any(String),
      });
    }
    await expect.poll(() => sweepEvents().length, { timeout: 15_000 }).toBe(2);
    expect(
      sweepEvents()
        .map((p) => (p.data.sweep as { id: string }).id)
        .sort(),
    ).toEqual(recorded.map((s) => s.id).sort());
    expect(sweepEvents().map((p) => p.data.sweep)).toEqual(expect.arrayContaining(recorded));
  });

  it("recording again gives the same sweeps back (200), writes nothing and sends no event", async () => {
    const again = await call("POST", "/v1/settlements/sweeps", usdtReport);
    expect([again.status, again.body.meta, again.body.data]).toEqual([200, { recorded: 0, already_recorded: 2 }, recorded]);
    const one = await call("POST", "/v1/settlements/sweeps", { network: "ethereum", tx_hash: recorded[0].tx_hash.slice(2).toUpperCase() });
    expect([one.status, one.body.data]).toEqual([200, [recorded[0]]]);
    expect(await service.runtime.database.db.sweep.count()).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sweepEvents()).toHaveLength(2);
  });

  it("records the ETH sweep by its one hash (no top-up: the coin paid its own fee)", async () => {
    const report = await sweep("ETH", ethAccount);
    expect(report.sweeps).toEqual([{ tx_hash: expect.any(String), top_up_tx_hash: null }]);
    const hash = report.sweeps[0]?.tx_hash as string;
    const got = await call("POST", "/v1/settlements/sweeps", { network: "ETHEREUM", tx_hash: hash });
    expect(got.status, JSON.stringify(got.body)).toBe(201);
    const tx = (await anvil.send("eth_getTransactionByHash", [hash])) as { value: string };
    const fee = await feeOf(hash);
    expect(got.body.data[0]).toMatchObject({
      coin: "ETH",
      amount: decimalOf(BigInt(tx.value), 18),
      fee,
      fee_coin: "ETH",
      transaction_id: eth.id,
      top_up: null,
    });
    expect(new Decimal(got.body.data[0].amount).plus(fee).toFixed()).toBe(decimalOf(dueUnits(eth), 18));
    recorded.push(got.body.data[0]);
  });

  it("lists the sweeps newest first, paged, and one by its id; the other mode sees none", async () => {
    const page = await call("GET", "/v1/settlements/sweeps?limit=2");
    expect([page.status, page.body.has_more, page.body.data.length]).toEqual([200, true, 2]);
    const rest = await call("GET", `/v1/settlements/sweeps?starting_after=${page.body.data[1].id}`);
    expect([...page.body.data, ...rest.body.data].map((s: any) => s.id).sort()).toEqual(recorded.map((s) => s.id).sort());
    expect(rest.body.has_more).toBe(false);
    const one = await call("GET", `/v1/settlements/sweeps/${recorded[0].id}`);
    expect([one.status, one.body.data]).toEqual([200, recorded[0]]);
    expect((await call("GET", "/v1/settlements/sweeps?network=bsc")).body.data).toEqual([]);

    const live = service.merchant.liveSecretKey;
    expect((await call("GET", "/v1/settlements/sweeps", undefined, live)).body.data).toEqual([]);
    const other = await call("GET", `/v1/settlements/sweeps/${recorded[0].id}`, undefined, live);
    expect([other.status, other.body.reason, other.body.message]).toEqual([404, "sweep_not_found", `No sweep with id '${recorded[0].id}'`]);
    // A live key reads the live node (none here), never the test payments: nothing is recorded.
    const wall = await call("POST", "/v1/settlements/sweeps", { network: "ethereum", tx_hash: recorded[0].tx_hash }, live);
    expect([wall.status, wall.body.reason]).toEqual([503, "chain_node_unavailable"]);
    expect(wall.body.message).toMatch(
      /^The Ethereum node \(PAYGATE_ETH_RPC_URL\) cannot be asked about the sweep's transactions \(no node is configured\)/,
    );
    const listed = await call("GET", "/v1/ledger/entries?kind=sweep", undefined, live);
    expect(listed.body.data).toEqual([]);
    const unknown = await call("GET", "/v1/settlements/sweeps?starting_after=sw_00000000-0000-4000-8000-000000000000");
    expect([unknown.status, unknown.body.reason]).toEqual([400, "unknown_cursor"]);
  });

  it("the ledger: a sweep entry each, the totals with swept, sweep_fees, own_sweep_fees and net, the CSV", async () => {
    const entries = (await call("GET", "/v1/ledger/entries?kind=sweep&limit=100")).body.data as any[];
    expect(entries.map((e) => e.id).sort()).toEqual(recorded.map((s) => `sweep:${s.id}`).sort());
    for (const s of recorded) {
      const t = [...usdt, eth].find((x) => x.id === s.transaction_id) as Transaction;
      expect(entries.find((e) => e.id === `sweep:${s.id}`)).toMatchObject({
        kind: "sweep",
        direction: "internal",
        occurred_at: s.mined_at,
        coin: s.coin,
        network: "ethereum",
        amount: s.amount,
        fee: s.fee,
        fee_coin: "ETH",
        tx_hash: s.tx_hash,
        address: destination,
        transaction_id: t.id,
        top_up_tx_hash: s.top_up?.tx_hash ?? null,
        top_up_fee: s.top_up?.fee ?? null,
      });
    }
    const sum = (pick: (s: any) => string | null | undefined, coin?: string) =>
      recorded.filter((s) => coin === undefined || s.coin === coin).reduce((acc, s) => acc.plus(pick(s) ?? 0), new Decimal(0));
    const totals = (await call("GET", "/v1/ledger/totals")).body.data.totals as any[];
    const usdtLine = totals.find((x) => x.coin === "USDT");
    const ethLine = totals.find((x) => x.coin === "ETH");
    expect(usdtLine).toMatchObject({ sweeps: 2, swept: sum((s) => s.amount, "USDT").toFixed(), sweep_fees: "0", own_sweep_fees: "0" });
    expect(usdtLine.net).toBe(usdtLine.received);
    // Every sweep's gas and every top-up's fee are ETH the merchant paid: on the ETH line, out of net.
    const sweepFees = sum((s) => s.fee);
    const ownFees = sum((s) => s.top_up?.fee);
    expect(ethLine).toMatchObject({
      sweeps: 1,
      swept: sum((s) => s.amount, "ETH").toFixed(),
      sweep_fees: sweepFees.toFixed(),
      own_sweep_fees: ownFees.toFixed(),
    });
    expect(ethLine.net).toBe(new Decimal(ethLine.received).minus(sweepFees).minus(ownFees).toFixed());

    const csv = await call("GET", "/v1/ledger/entries.csv?from=2000-01-01&to=2999-01-01&kind=sweep");
    const [header, ...rows] = (csv.body as string).trim().split("\r\n");
    expect(header?.split(",").slice(-2)).toEqual(["top_up_tx_hash", "top_up_fee"]);
    expect(rows).toHaveLength(3);
    for (const s of recorded) expect(csv.body).toContain(`${s.tx_hash},${destination}`);
  });

  it("refuses with the status and message of each case, and records nothing", async () => {
    const before = await service.runtime.database.db.sweep.count();
    const cases: [unknown, number, string, string | RegExp][] = [
      [
        { network: "ethereum", tx_hash: unknownHash },
        404,
        "sweep_transaction_not_found",
        `The Ethereum Sepolia testnet node does not know the transaction ${unknownHash}: check the hash and the network (and the mode of the key); nothing was recorded`,
      ],
      [
        { network: "ethereum", tx_hash: paymentTx },
        400,
        "sweep_not_from_payment_address",
        `The transaction ${paymentTx} was sent from ${toChecksumAddress(DEV_ACCOUNT)}, which is not the address of any of the merchant's test payments on that network: a sweep moves funds off a payment address; nothing was recorded`,
      ],
      [
        { network: "ethereum", tx_hash: recorded[0].top_up.tx_hash },
        400,
        "invalid_sweep_transaction",
        `The transaction ${recorded[0].top_up.tx_hash} is recorded as the top-up of another sweep, not a sweep; nothing was recorded`,
      ],
      [
        { network: "ethereum", sweeps: [{ tx_hash: unknownHash, top_up_tx_hash: recorded[0].top_up.tx_hash }] },
        400,
        "invalid_sweep_transaction",
        `The transaction ${recorded[0].top_up.tx_hash} is already the top-up of the sweep ${recorded[0].tx_hash}; nothing was recorded`,
      ],
    ];
    for (const [body, status, reason, message] of cases) {
      const got = await call("POST", "/v1/settlements/sweeps", body);
      expect([got.status, got.body.reason, got.body.message], JSON.stringify(body)).toEqual([status, reason, message]);
    }

    // A payment address's own transactions that are no sweep: one that reverted, one that moves nothing.
    const usdtKey = usdtAccount.deriveChild(0);
    const index = (await service.runtime.database.db.transaction.findUniqueOrThrow({ where: { id: usdt[0]?.id } })).derivationIndex as number;
    const payer = signerOf(anvil, usdtKey.deriveChild(index).privateKey as Uint8Array);
    funding = await anvil.sendTransaction({ to: payer.address, value: 10n ** 16n });
    payerAddress = payer.address;
    const reverted = await payer.send({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", destination, 1n), gas: 100_000n });
    const nothing = await payer.send({ to: payer.address, value: 0n, gas: 21_000n });
    const refusals: [string, number, string, string][] = [
      [
        reverted.transactionHash,
        409,
        "sweep_transaction_not_mined",
        `The transaction ${reverted.transactionHash} reverted: only a mined, successful transaction is a sweep; nothing was recorded`,
      ],
      [
        nothing.transactionHash,
        400,
        "invalid_sweep_transaction",
        `The transaction ${nothing.transactionHash} moves neither ETH nor a token paygate takes on ethereum off ${payer.address}; nothing was recorded`,
      ],
    ];
    for (const [hash, status, reason, message] of refusals) {
      const got = await call("POST", "/v1/settlements/sweeps", { network: "ethereum", tx_hash: hash });
      expect([got.status, got.body.reason, got.body.message]).toEqual([status, reason, message]);
    }
    // A top-up that sends no coin to the swept address: the whole request is refused, the valid sweep beside it too.
    const coinBack = await payer.send({ to: destination, value: 10n ** 15n, gas: 21_000n });
    const bad = await call("POST", "/v1/settlements/sweeps", {
      network: "ethereum",
      sweeps: [{ tx_hash: coinBack.transactionHash, top_up_tx_hash: paymentTx }],
    });
    expect([bad.status, bad.body.reason, bad.body.message]).toEqual([
      400,
      "invalid_sweep_transaction",
      `The transaction ${paymentTx} is no top-up of ${payer.address}: a top-up sends ETH to the swept address, with no call; nothing was recorded`,
    ]);

    // Not mined yet.
    await anvil.send("evm_setAutomine", [false]);
    const pending = String(await anvil.send("eth_sendTransaction", [{ from: DEV_ACCOUNT, to: destination, value: "0x1" }]));
    const waiting = await call("POST", "/v1/settlements/sweeps", { network: "ethereum", tx_hash: pending });
    await anvil.send("evm_setAutomine", [true]);
    await anvil.mine(1);
    expect([waiting.status, waiting.body.reason, waiting.body.message]).toEqual([
      409,
      "sweep_transaction_not_mined",
      `The transaction ${pending} is not mined yet: only a mined, successful transaction is a sweep; nothing was recorded`,
    ]);

    const invalid: [unknown, string, string][] = [
      [
        { network: "litecoin", tx_hash: unknownHash },
        "network",
        "network must be one of ethereum, bsc, base, polygon, arbitrum, tron (got 'litecoin')",
      ],
      [{ network: "ethereum", tx_hash: "0x1234" }, "tx_hash", "tx_hash must be a transaction hash: 64 hexadecimal digits"],
      [{ network: "ethereum" }, "tx_hash", "give either tx_hash (one sweep) or sweeps (what tools/sweep --report prints), not both"],
      [{ network: "ethereum", tx_hash: unknownHash, top_up_tx_hash: unknownHash }, "top_up_tx_hash", `${unknownHash} cannot be its own top-up`],
    ];
    for (const [body, field, message] of invalid) {
      const got = await call("POST", "/v1/settlements/sweeps", body);
      expect([got.status, got.body.reason, got.body.errors?.[0]], JSON.stringify(body)).toEqual([400, "invalid_sweep_request", { field, message }]);
    }
    // A key rolled by a viewer reads the sweeps but records none.
    const db = service.runtime.database.db;
    const key = await db.apiKey.findFirstOrThrow({ where: { merchantId: service.merchant.id, kind: "SECRET", isLive: false, revokedAt: null } });
    await db.apiKey.update({
      where: { id: key.id },
      data: { createdByRole: "viewer", createdByUserId: "usr_viewer", createdByEmail: "viewer@example.com" },
    });
    try {
      const viewer = await call("POST", "/v1/settlements/sweeps", { network: "ethereum", tx_hash: unknownHash });
      expect([viewer.status, viewer.body.reason, viewer.body.message]).toEqual([
        403,
        "key_role_forbidden",
        "This key was rolled by a viewer, and that role cannot manage settlement: use a key rolled by an owner, or ask an owner of this merchant",
      ]);
      expect((await call("GET", "/v1/settlements/sweeps")).status).toBe(200);
    } finally {
      await db.apiKey.update({ where: { id: key.id }, data: { createdByRole: null, createdByUserId: null, createdByEmail: null } });
    }
    expect(await db.sweep.count()).toBe(before);
  });

  it("two requests at once with one top-up for two sweeps: one is recorded with it, the other refused", async () => {
    const index = (await service.runtime.database.db.transaction.findUniqueOrThrow({ where: { id: usdt[0]?.id } })).derivationIndex as number;
    const payer = signerOf(anvil, usdtAccount.deriveChild(0).deriveChild(index).privateKey as Uint8Array);
    expect(payer.address).toBe(payerAddress);
    const sweeps = [
      await payer.send({ to: destination, value: 10n ** 14n, gas: 21_000n }),
      await payer.send({ to: destination, value: 10n ** 14n, gas: 21_000n }),
    ];
    const replies = await Promise.all(
      sweeps.map((r) => call("POST", "/v1/settlements/sweeps", { network: "ethereum", tx_hash: r.transactionHash, top_up_tx_hash: funding })),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = replies.find((r) => r.status !== 201) as Reply;
    // Whichever came second: it saw the other's sweep (400), or lost the insert to it (409).
    if (refused.status === 409)
      expect([refused.body.reason, refused.body.message]).toEqual([
        "sweep_top_up_taken",
        `The top-up ${funding} was recorded with another sweep meanwhile; the request's other sweeps were recorded: post this sweep again without it`,
      ]);
    else {
      expect([refused.status, refused.body.reason]).toEqual([400, "invalid_sweep_transaction"]);
      expect(refused.body.message).toMatch(
        new RegExp(`^The transaction ${funding} is already the top-up of the sweep 0x[0-9a-f]{64}; nothing was recorded$`),
      );
    }
    const taken = await service.runtime.database.db.sweep.findMany({ where: { topUpTxHash: funding } });
    expect(taken).toHaveLength(1);
  });

  it("answers 503 naming the node when it cannot be asked; what was recorded still reads", async () => {
    await anvil.stop();
    stopped = true;
    const refused = await call("POST", "/v1/settlements/sweeps", { network: "ethereum", tx_hash: unknownHash });
    expect([refused.status, refused.body.reason]).toEqual([503, "chain_node_unavailable"]);
    expect(refused.body.message).toMatch(
      /^The Ethereum Sepolia testnet node \(PAYGATE_ETH_TEST_RPC_URL\) cannot be asked about the sweep's transactions \(.+\); nothing was recorded, retry once it answers$/,
    );
    const again = await call("POST", "/v1/settlements/sweeps", { network: "ethereum", tx_hash: recorded[0].tx_hash });
    expect([again.status, again.body.data]).toEqual([200, [recorded[0]]]);
  });
});
