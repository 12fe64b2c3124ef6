// Refunds of ETH and USDT on anvil (issue 26): paygate builds the unsigned transaction from the paid
// address (a native transfer with the gas taken out of a refund of everything; the token's transfer
// with the ETH its gas needs stated), the test signs it with the paid address's key derived from the
// merchant's test seed (EIP-155, as a wallet would), sends it raw, and the refund watcher closes the
// refund with its hash once it has its confirmations. The fees (issue 42): an EIP-1559 (type 2)
// transaction from the node's base fee and tip, signed and mined; on a chain before London (anvil
// --hardfork berlin) the legacy gas price alone.
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { HDKey } from "@scure/bip32";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../src/rails/wallets/networks.ts";
import { toChecksumAddress } from "../../src/rails/wallets/addresses.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { dueUnits } from "./evm.ts";
import { startE2eService, type E2eService } from "./service.ts";

const CHAIN_ID = 31_337;
const REQUIRED = 2;
const SEED = randomBytes(32);
const account = HDKey.fromMasterSeed(SEED).derive("m/44'/60'/0'");
// USDT on an account of its own: two EVM wallets on one key would hand out the same addresses (issue 42).
const usdtAccount = HDKey.fromMasterSeed(SEED).derive("m/44'/60'/1'");
const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};

interface RefundBody {
  id: string;
  state: string;
  amount: string;
  amount_to_customer: string;
  network_fee: string | null;
  tx_hash: string | null;
  paid_by: string | null;
  payment: {
    uri: string;
    evm_transaction: {
      from: string;
      to: string;
      value: string;
      data: string;
      chainId: number;
      gas: string;
      type: number;
      gasPrice: string | null;
      maxFeePerGas: string | null;
      maxPriorityFeePerGas: string | null;
    } | null;
    gas_needed: { coin: string; amount: string } | null;
  } | null;
}

let anvil: Anvil;
let service: E2eService;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  await anvil.setCode(USDT_SEPOLIA_CONTRACT, compiled.contracts.TestToken6.deployedBytecode);
  await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
  service = await startE2eService(
    { PAYGATE_ETH_TEST_RPC_URL: anvil.url, PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID), PAYGATE_CONFIRMATIONS_ETH: String(REQUIRED) },
    ["ETH", "USDT"],
  );
  await service.runtime.gateway.operator.updateMerchant(service.merchant.id, {
    wallets: (
      [
        ["ETH", account],
        ["USDT", usdtAccount],
      ] as const
    ).map(([slug, key]) => ({
      currency: cryptoBySlug(slug) as CryptoCurrency,
      isLive: false,
      extendedPublicKey: serializeKey(key, "tpub"),
    })),
  });
});
afterAll(async () => {
  await service?.close();
  await anvil?.stop();
});

function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

/** RLP of byte strings and lists (Ethereum's yellow paper, appendix B). */
type Rlp = Uint8Array | Rlp[];
function rlp(item: Rlp): Uint8Array {
  const length = (n: number, offset: number) => {
    if (n < 56) return Uint8Array.of(offset + n);
    const bytes = hexToBytes(n.toString(16).padStart(n.toString(16).length + (n.toString(16).length % 2), "0"));
    return Uint8Array.of(offset + 55 + bytes.length, ...bytes);
  };
  if (item instanceof Uint8Array) {
    if (item.length === 1 && (item[0] as number) < 0x80) return item;
    return Uint8Array.from([...length(item.length, 0x80), ...item]);
  }
  const body = item.flatMap((x) => [...rlp(x)]);
  return Uint8Array.from([...length(body.length, 0xc0), ...body]);
}
/** A scalar without its leading zero bytes, as RLP wants it. */
const unpadded = (bytes: Uint8Array) =>
  bytes.slice(
    Math.max(
      0,
      bytes.findIndex((b) => b !== 0),
    ),
  );
const quantity = (n: bigint) =>
  n === 0n ? new Uint8Array() : hexToBytes(n.toString(16).padStart(n.toString(16).length + (n.toString(16).length % 2), "0"));

/** The EVM address of a derived key (lower case). */
const addressOfKey = (key: HDKey) =>
  `0x${bytesToHex(
    keccak_256(
      secp256k1.Point.fromBytes(key.publicKey as Uint8Array)
        .toBytes(false)
        .subarray(1),
    ).subarray(-20),
  )}`;

type EvmTransaction = NonNullable<NonNullable<RefundBody["payment"]>["evm_transaction"]>;

/** The key of `index` of the account whose address it is the one paid (each coin has its own account). */
function keyOf(tx: EvmTransaction, index: number): HDKey {
  const key = [account, usdtAccount].map((a) => a.deriveChild(0).deriveChild(index)).find((k) => addressOfKey(k) === tx.from.toLowerCase());
  if (!key) throw new Error(`no account of the test derives ${tx.from} at index ${index}`);
  return key;
}

/** Signs paygate's unsigned transaction with the key of `index` (EIP-155 legacy form), as the merchant's wallet would. */
async function signAndSend(tx: EvmTransaction, index: number, gasPrice: bigint, node: Anvil = anvil): Promise<string> {
  const key = keyOf(tx, index);
  const nonce = BigInt(String(await node.send("eth_getTransactionCount", [tx.from, "latest"])));
  const fields: Rlp[] = [
    quantity(nonce),
    quantity(gasPrice),
    quantity(BigInt(tx.gas)),
    hexToBytes(tx.to.slice(2)),
    quantity(BigInt(tx.value)),
    hexToBytes(tx.data.slice(2)),
  ];
  const digest = keccak_256(rlp([...fields, quantity(BigInt(tx.chainId)), new Uint8Array(), new Uint8Array()]));
  const signature = secp256k1.sign(digest, key.privateKey as Uint8Array, { prehash: false, format: "recovered" });
  const v = BigInt(tx.chainId) * 2n + 35n + BigInt(signature[0] as number);
  const raw = rlp([...fields, quantity(v), unpadded(signature.slice(1, 33)), unpadded(signature.slice(33))]);
  return String(await node.send("eth_sendRawTransaction", [`0x${bytesToHex(raw)}`]));
}

/** Signs it as an EIP-1559 transaction (type 2, EIP-2718's envelope) with the fees paygate gave. */
async function signAndSendType2(tx: EvmTransaction, index: number): Promise<string> {
  const key = keyOf(tx, index);
  const nonce = BigInt(String(await anvil.send("eth_getTransactionCount", [tx.from, "latest"])));
  const fields: Rlp[] = [
    quantity(BigInt(tx.chainId)),
    quantity(nonce),
    quantity(BigInt(tx.maxPriorityFeePerGas ?? "x")),
    quantity(BigInt(tx.maxFeePerGas ?? "x")),
    quantity(BigInt(tx.gas)),
    hexToBytes(tx.to.slice(2)),
    quantity(BigInt(tx.value)),
    hexToBytes(tx.data.slice(2)),
    [],
  ];
  const digest = keccak_256(Uint8Array.from([2, ...rlp(fields)]));
  const signature = secp256k1.sign(digest, key.privateKey as Uint8Array, { prehash: false, format: "recovered" });
  const signed = rlp([...fields, quantity(BigInt(signature[0] as number)), unpadded(signature.slice(1, 33)), unpadded(signature.slice(33))]);
  return String(await anvil.send("eth_sendRawTransaction", [`0x02${bytesToHex(signed)}`]));
}

const call = async (method: string, route: string, body?: unknown) => {
  const response = await fetch(`${service.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${service.merchant.testSecretKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data?: RefundBody } };
};

async function refundUntil(id: string, done: (r: RefundBody) => boolean, what: string): Promise<RefundBody> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const refund = (await call("GET", `/v1/refunds/${id}`)).body.data as RefundBody;
    if (done(refund)) return refund;
    if (Date.now() > deadline) throw new Error(`refund ${id} did not reach ${what}: ${JSON.stringify(refund)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The wallet index the payment's address was derived at. */
async function indexOf(id: string): Promise<number> {
  const row = await service.runtime.database.db.transaction.findUniqueOrThrow({ where: { id }, select: { derivationIndex: true } });
  return row.derivationIndex as number;
}

const toWei = (eth: string) => {
  const [whole = "0", fraction = ""] = eth.split(".");
  return BigInt(whole) * 10n ** 18n + BigInt((fraction + "0".repeat(18)).slice(0, 18));
};

describe("EVM refunds through the service on anvil", () => {
  it("ETH: a refund of everything pays its gas out of the paid address; signed with the address's key, it closes itself", async () => {
    const customer = anvil.accounts[1] as string;
    const t0 = await service.initiate("ETH", "30", customer);
    const due = dueUnits(t0);
    await anvil.sendTransaction({ to: t0.payment_address, value: due });
    await anvil.mine(REQUIRED);
    await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");

    const created = await call("POST", `/v1/transaction/${t0.id}/refunds`, { amount_kind: "full" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const refund = created.body.data as RefundBody;
    const tx = refund.payment?.evm_transaction;
    if (!tx || refund.network_fee === null) throw new Error(`no transaction or fee: ${JSON.stringify(refund)}`);
    const fee = toWei(refund.network_fee);
    expect(tx).toMatchObject({ from: t0.payment_address, to: toChecksumAddress(customer), data: "0x", chainId: CHAIN_ID, gas: "21000" });
    expect(BigInt(tx.value)).toBe(due - fee);
    expect(toWei(refund.amount_to_customer)).toBe(due - fee);
    expect(refund.payment?.gas_needed).toBeNull();
    expect(refund.payment?.uri).toBe(`ethereum:${tx.to}@${CHAIN_ID}?value=${due - fee}`);

    const before = BigInt(String(await anvil.send("eth_getBalance", [customer, "latest"])));
    const hash = await signAndSend(tx, await indexOf(t0.id), fee / 21_000n);
    await anvil.mine(REQUIRED);
    const closed = await refundUntil(refund.id, (r) => r.state === "succeeded", "succeeded");
    expect([closed.tx_hash, closed.paid_by]).toEqual([hash, "watcher"]);
    expect(BigInt(String(await anvil.send("eth_getBalance", [customer, "latest"]))) - before).toBe(due - fee);
    expect(BigInt(String(await anvil.send("eth_getBalance", [t0.payment_address, "latest"])))).toBe(0n);
  }, 120_000);

  it("USDT: the token's transfer from the paid address, with the ETH its gas needs said; funded, signed and sent, it closes itself", async () => {
    const customer = anvil.accounts[2] as string;
    const t0 = await service.initiate("USDT", "25", customer);
    const due = dueUnits(t0);
    await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", t0.payment_address, due) });
    await anvil.mine(REQUIRED);
    await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");

    const created = await call("POST", `/v1/transaction/${t0.id}/refunds`, { amount_kind: "full" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const refund = created.body.data as RefundBody;
    const tx = refund.payment?.evm_transaction;
    const gasNeeded = refund.payment?.gas_needed;
    if (!tx || !gasNeeded) throw new Error(`no transaction or gas: ${JSON.stringify(refund)}`);
    expect(tx).toMatchObject({
      from: t0.payment_address,
      to: USDT_SEPOLIA_CONTRACT,
      value: "0",
      chainId: CHAIN_ID,
      data: abiCall("transfer(address,uint256)", customer, due),
    });
    expect(gasNeeded.coin).toBe("ETH");
    // gas × the node's gas price, in ETH.
    expect(toWei(gasNeeded.amount) > 0n && toWei(gasNeeded.amount) % BigInt(tx.gas) === 0n).toBe(true);
    expect(refund.amount_to_customer).toBe(refund.amount);
    expect(refund.payment?.uri).toBe(`ethereum:${USDT_SEPOLIA_CONTRACT}@${CHAIN_ID}/transfer?address=${toChecksumAddress(customer)}&uint256=${due}`);

    // Without ETH at the paid address the transfer cannot pay its gas: the merchant sends what gas_needed says first.
    await anvil.sendTransaction({ to: t0.payment_address, value: toWei(gasNeeded.amount) });
    const hash = await signAndSend(tx, await indexOf(t0.id), toWei(gasNeeded.amount) / BigInt(tx.gas));
    await anvil.mine(REQUIRED);
    const closed = await refundUntil(refund.id, (r) => r.state === "succeeded", "succeeded");
    expect([closed.tx_hash, closed.paid_by]).toEqual([hash, "watcher"]);
  }, 120_000);

  it("ETH: EIP-1559 fees from the node's base fee and tip; the type 2 transaction signed from them is mined and closes the refund", async () => {
    const customer = anvil.accounts[3] as string;
    const t0 = await service.initiate("ETH", "30", customer);
    const due = dueUnits(t0);
    await anvil.sendTransaction({ to: t0.payment_address, value: due });
    await anvil.mine(REQUIRED);
    await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");

    const created = await call("POST", `/v1/transaction/${t0.id}/refunds`, { amount_kind: "full" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const refund = created.body.data as RefundBody;
    const tx = refund.payment?.evm_transaction;
    if (!tx || refund.network_fee === null || tx.maxFeePerGas === null || tx.maxPriorityFeePerGas === null || tx.gasPrice === null) {
      throw new Error(`no type 2 transaction: ${JSON.stringify(refund)}`);
    }
    const block = (await anvil.send("eth_getBlockByNumber", ["latest", false])) as { baseFeePerGas: string };
    const [maxFee, tip, gasPrice] = [BigInt(tx.maxFeePerGas), BigInt(tx.maxPriorityFeePerGas), BigInt(tx.gasPrice)];
    expect(tx.type).toBe(2);
    expect(tip).toBe(BigInt(String(await anvil.send("eth_maxPriorityFeePerGas"))));
    expect(maxFee >= BigInt(block.baseFeePerGas) + tip && gasPrice > 0n).toBe(true);
    // A refund of everything keeps the most its gas can cost, at the higher of the two prices: either signs.
    const fee = BigInt(tx.gas) * (maxFee > gasPrice ? maxFee : gasPrice);
    expect(toWei(refund.network_fee)).toBe(fee);
    expect(BigInt(tx.value)).toBe(due - fee);

    const hash = await signAndSendType2(tx, await indexOf(t0.id));
    await anvil.mine(REQUIRED);
    const receipt = (await anvil.send("eth_getTransactionReceipt", [hash])) as { type: string; status: string; effectiveGasPrice: string };
    expect([receipt.type, receipt.status]).toEqual(["0x2", "0x1"]);
    const closed = await refundUntil(refund.id, (r) => r.state === "succeeded", "succeeded");
    expect([closed.tx_hash, closed.paid_by]).toEqual([hash, "watcher"]);
    // The fee paid below the most kept stays at the paid address, to the wei.
    const paid = BigInt(tx.gas) * BigInt(receipt.effectiveGasPrice);
    expect(BigInt(String(await anvil.send("eth_getBalance", [t0.payment_address, "latest"])))).toBe(fee - paid);
  }, 120_000);
});

describe("EVM refunds on a chain without EIP-1559 (anvil --hardfork berlin)", () => {
  let berlin: Anvil;
  let old: E2eService;

  beforeAll(async () => {
    berlin = await startAnvil({ chainId: CHAIN_ID, hardfork: "berlin" });
    old = await startE2eService(
      { PAYGATE_ETH_TEST_RPC_URL: berlin.url, PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID), PAYGATE_CONFIRMATIONS_ETH: String(REQUIRED) },
      ["ETH"],
    );
    await old.runtime.gateway.operator.updateMerchant(old.merchant.id, {
      wallets: [{ currency: cryptoBySlug("ETH") as CryptoCurrency, isLive: false, extendedPublicKey: serializeKey(account, "tpub") }],
    });
  });
  afterAll(async () => {
    await old?.close();
    await berlin?.stop();
  });

  it("gives the legacy gas price alone (type 0); signed with it, the refund closes", async () => {
    const customer = berlin.accounts[1] as string;
    const t0 = await old.initiate("ETH", "30", customer);
    const due = dueUnits(t0);
    // Anvil's own sendTransaction fills in EIP-1559 fees, which berlin refuses: the payment with a gas price.
    const gasPrice = String(await berlin.send("eth_gasPrice"));
    await berlin.send("eth_sendTransaction", [{ from: DEV_ACCOUNT, to: t0.payment_address, value: `0x${due.toString(16)}`, gasPrice }]);
    await berlin.mine(REQUIRED);
    await old.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");

    const response = await fetch(`${old.url}/v1/transaction/${t0.id}/refunds`, {
      method: "POST",
      headers: { authorization: `Bearer ${old.merchant.testSecretKey}`, "content-type": "application/json" },
      body: JSON.stringify({ amount_kind: "full" }),
    });
    const refund = ((await response.json()) as { data: RefundBody }).data;
    expect(response.status, JSON.stringify(refund)).toBe(201);
    const tx = refund.payment?.evm_transaction;
    if (!tx || tx.gasPrice === null || refund.network_fee === null) throw new Error(`no legacy transaction: ${JSON.stringify(refund)}`);
    expect([tx.type, tx.maxFeePerGas, tx.maxPriorityFeePerGas]).toEqual([0, null, null]);
    expect(BigInt(tx.gasPrice)).toBe(BigInt(String(await berlin.send("eth_gasPrice"))));
    expect(toWei(refund.network_fee)).toBe(BigInt(tx.gas) * BigInt(tx.gasPrice));

    const row = await old.runtime.database.db.transaction.findUniqueOrThrow({ where: { id: t0.id }, select: { derivationIndex: true } });
    const hash = await signAndSend(tx, row.derivationIndex as number, BigInt(tx.gasPrice), berlin);
    await berlin.mine(REQUIRED);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const got = await fetch(`${old.url}/v1/refunds/${refund.id}`, { headers: { authorization: `Bearer ${old.merchant.testSecretKey}` } });
      const now = ((await got.json()) as { data: RefundBody }).data;
      if (now.state === "succeeded") {
        expect(now.tx_hash).toBe(hash);
        break;
      }
      if (Date.now() > deadline) throw new Error(`refund ${refund.id} did not succeed: ${JSON.stringify(now)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(BigInt(String(await berlin.send("eth_getBalance", [t0.payment_address, "latest"])))).toBe(0n);
  }, 120_000);
});
