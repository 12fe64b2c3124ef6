// Refund rails without a node (issue 26): wallets set as descriptor key expressions with their
// origin (each refusal and its message, stored on the wallet through the service), and the refund
// PSBT's fee, change and dust rules, with the key origins it carries.
import { HDKey } from "@scure/bip32";
import { Transaction } from "@scure/btc-signer";
import { base64 } from "@scure/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyOriginProblem, readKeyExpression } from "../../../src/core/merchants/key-origin.ts";
import { cryptoBySlug } from "../../../src/core/money/currencies.ts";
import { buildRefundPsbt, dustOf, feeFor, outputScript, type RefundPsbtRequest } from "../../../src/rails/refunds/psbt.ts";
import { p2wpkhAddress } from "../../../src/rails/wallets/addresses.ts";
import { RefundRails } from "../../../src/rails/refunds/index.ts";
import { payingTransactions } from "../../../src/core/refunds/watch.ts";
import { Decimal } from "../../../src/core/money/amounts.ts";
import { HdWalletRails } from "../../../src/rails/wallets/index.ts";
import { buildCoinNetworkTable } from "../../../src/rails/wallets/networks.ts";
import type { UtxoNetwork } from "../../../src/rails/wallets/networks.ts";
import { serializeKey } from "../../support/hd-keys.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

const SEED = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const master = HDKey.fromMasterSeed(SEED);
const FINGERPRINT = master.fingerprint.toString(16).padStart(8, "0");
const account = master.derive("m/84'/1'/0'");
const VPUB = serializeKey(account, "vpub");
const H = 0x80000000;
const regtest = buildCoinNetworkTable({ utxoTestChains: { LTC: "regtest" } }).get("LTC:litecoin")?.test as UtxoNetwork;

describe("a wallet key with its origin", () => {
  it("reads [fingerprint/path]key in ' and h forms, and a bare key without origin", () => {
    expect(readKeyExpression(`[${FINGERPRINT.toUpperCase()}/84h/1h/0h]${VPUB}`)).toEqual({
      ok: true,
      value: { extendedPublicKey: VPUB, keyOrigin: { fingerprint: FINGERPRINT, path: [84 + H, 1 + H, 0 + H] } },
    });
    expect(readKeyExpression(`[${FINGERPRINT}/84'/1'/0']${VPUB}`)).toMatchObject({ ok: true, value: { keyOrigin: { path: [84 + H, 1 + H, H] } } });
    expect(readKeyExpression(VPUB)).toEqual({ ok: true, value: { extendedPublicKey: VPUB, keyOrigin: null } });
  });

  it.each([
    [`[${FINGERPRINT}/84'/1'/0'${VPUB}`, "the key origin has no closing ']': write it as in [d34db33f/84'/0'/0']xpub…"],
    [`[${FINGERPRINT}/84'/1'/0']`, "the key origin is not followed by the account's extended public key, as in [d34db33f/84'/0'/0']xpub…"],
    [`${VPUB}]`, "the key origin must come first, in brackets, as in [d34db33f/84'/0'/0']xpub…"],
    [`[d34db33/84'/1'/0']${VPUB}`, "the key origin's fingerprint must be 8 hexadecimal digits (your wallet's master fingerprint), got 'd34db33'"],
    [`[zz4db33f/84'/1'/0']${VPUB}`, "the key origin's fingerprint must be 8 hexadecimal digits (your wallet's master fingerprint), got 'zz4db33f'"],
    [`[${FINGERPRINT}]${VPUB}`, `the key origin gives no path after the fingerprint: give the account's path, as in [${FINGERPRINT}/84'/0'/0']`],
    [`[${FINGERPRINT}/84'/1'/x']${VPUB}`, "'x'' in the key origin's path is not a derivation step (a number below 2^31, with ' or h when hardened)"],
    [
      `[${FINGERPRINT}/84'/1'/2147483648']${VPUB}`,
      "'2147483648'' in the key origin's path is not a derivation step (a number below 2^31, with ' or h when hardened)",
    ],
    [`[${FINGERPRINT}/84'/1'/0]${VPUB}`, "the account path must be hardened at every step (as 84'/0'/0'); step '0' is not"],
    [`[${FINGERPRINT}/84'/1']${VPUB}`, "the key origin's path has 2 steps, but an account key is at depth 3: give the account's path, as 84'/0'/0'"],
    [
      `[${FINGERPRINT}/84'/1'/0'/0']${VPUB}`,
      "the key origin's path has 4 steps, but an account key is at depth 3: give the account's path, as 84'/0'/0'",
    ],
    [
      `[${FINGERPRINT}/84'/1'/0']${VPUB}/0/*`,
      "give the account key without a child path (no /0/* after it): paygate derives the receive and change addresses itself",
    ],
  ])("refuses %s", (text, reason) => {
    expect(readKeyExpression(text)).toEqual({ ok: false, reason });
  });

  it("refuses an origin that does not fit the key: another depth, or another account index", () => {
    const origin = { fingerprint: FINGERPRINT, path: [84 + H, 1 + H, 1 + H] };
    expect(keyOriginProblem(origin, { ok: true, depth: 3, childIndex: H })).toBe(
      "the key origin's path ends at 1' but the key was derived at 0': give the origin of this account",
    );
    expect(keyOriginProblem({ ...origin, path: [84 + H, 1 + H, H] }, { ok: true, depth: 3, childIndex: H })).toBeNull();
    expect(keyOriginProblem(origin, { ok: true, depth: 2 })).toBe("the key origin's path has 3 steps but the key is at depth 2");
  });
});

describe("setting a wallet with its origin, through the service", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t.close());
  const ltc = cryptoBySlug("LTC");
  if (!ltc) throw new Error("no LTC");
  const walletOf = async (merchantId: number) =>
    (
      await t.db.paymentProcessor.findUniqueOrThrow({
        where: { merchantId_currencyId_network_isLive: { merchantId, currencyId: ltc.id, network: "litecoin", isLive: false } },
        include: { wallet: true },
      })
    ).wallet;

  it("stores the origin apart from the key; payments keep deriving from the key; setting it again bare keeps the origin", async () => {
    const m = await t.merchant({ name: "Origin Stores" });
    await t.gateway.operator.updateMerchant(m.id, {
      wallets: [{ currency: ltc, isLive: false, extendedPublicKey: `[${FINGERPRINT}/84h/1h/0h]${VPUB}` }],
    });
    const wallet = await walletOf(m.id);
    expect([wallet.extendedPublicKey, wallet.keyOrigin]).toEqual([VPUB, `${FINGERPRINT}/84'/1'/0'`]);
    await t.gateway.operator.updateMerchant(m.id, { wallets: [{ currency: ltc, isLive: false, extendedPublicKey: VPUB }] });
    expect((await walletOf(m.id)).keyOrigin).toBe(`${FINGERPRINT}/84'/1'/0'`);
    const preview = await t.gateway.merchants.previewWallet(t.gateway.access.operator(m.id), {
      currency: "LTC",
      mode: "test",
      extendedPublicKey: `[${FINGERPRINT}/84'/1'/0']${VPUB}`,
    });
    expect(preview.extendedPublicKey).toBe(`[${FINGERPRINT}/84'/1'/0']${VPUB}`);
    // The dashboard sets what its preview showed: the origin goes with it.
    const other = await t.merchant({ name: "Dashboard Origin" });
    const otherKey = serializeKey(HDKey.fromMasterSeed(new Uint8Array(32).fill(5)).derive("m/84'/1'/0'"), "vpub");
    const otherFingerprint = HDKey.fromMasterSeed(new Uint8Array(32).fill(5)).fingerprint.toString(16).padStart(8, "0");
    const shown = await t.gateway.merchants.previewWallet(t.gateway.access.operator(other.id), {
      currency: "LTC",
      mode: "test",
      extendedPublicKey: `[${otherFingerprint}/84h/1h/0h]${otherKey}`,
    });
    await t.gateway.merchants.setWallet(t.gateway.access.operator(other.id), {
      currency: "LTC",
      mode: "test",
      extendedPublicKey: shown.extendedPublicKey,
    });
    const set = await walletOf(other.id);
    expect([set.extendedPublicKey, set.keyOrigin]).toEqual([otherKey, `${otherFingerprint}/84'/1'/0'`]);
  });

  it("refuses a malformed or mismatched origin with a 422-kind settings error naming the wallet, and changes nothing", async () => {
    const m = await t.merchant({ name: "Bad Origin" });
    const before = await walletOf(m.id);
    await expect(
      t.gateway.operator.updateMerchant(m.id, {
        wallets: [{ currency: ltc, isLive: false, extendedPublicKey: `[${FINGERPRINT}/84'/1'/1']${VPUB}` }],
      }),
    ).rejects.toMatchObject({
      code: "validation_error",
      message: "LTC wallet: the key origin's path ends at 1' but the key was derived at 0': give the origin of this account",
    });
    await expect(
      t.gateway.operator.updateMerchant(m.id, { wallets: [{ currency: ltc, isLive: false, extendedPublicKey: `[nothex00/84'/1'/0']${VPUB}` }] }),
    ).rejects.toMatchObject({
      message: "LTC wallet: the key origin's fingerprint must be 8 hexadecimal digits (your wallet's master fingerprint), got 'nothex00'",
    });
    const after = await walletOf(m.id);
    expect([after.id, after.extendedPublicKey, after.keyOrigin]).toEqual([before.id, before.extendedPublicKey, null]);
  });
});

describe("the refund PSBT's fee, change and dust", () => {
  const destination = p2wpkhAddress("rltc", new Uint8Array(20).fill(7));
  const base = (over: Partial<RefundPsbtRequest>): RefundPsbtRequest => ({
    network: regtest,
    account,
    keyOrigin: { fingerprint: FINGERPRINT, path: [84 + H, 1 + H, H] },
    derivationIndex: 7,
    outputs: [{ txid: "11".repeat(32), vout: 1, value: 100_000n }],
    destination,
    amount: 60_000n,
    feeRate: "2",
    deductNetworkFee: false,
    ...over,
  });
  // One P2WPKH input, two P2WPKH outputs: (42 + 273 + 2 × 124) / 4 = 140.75 → 141 vB; without change 110 vB.
  const WITH_CHANGE = 141n;
  const WITHOUT_CHANGE = 110n;

  it("pays the customer the amount and the change the rest less the fee, with the key origins on the input and the change", () => {
    const built = buildRefundPsbt(base({}));
    if (!built.ok) throw new Error(JSON.stringify(built));
    expect([built.fee, built.toCustomer, built.change]).toEqual([WITH_CHANGE * 2n, 60_000n, 40_000n - WITH_CHANGE * 2n]);
    const tx = Transaction.fromPSBT(base64.decode(built.psbt));
    const input = tx.getInput(0);
    expect(input.bip32Derivation?.[0]?.[1]).toEqual({ fingerprint: master.fingerprint, path: [84 + H, 1 + H, H, 0, 7] });
    expect(input.bip32Derivation?.[0]?.[0]).toEqual(account.deriveChild(0).deriveChild(7).publicKey);
    expect(input.witnessUtxo?.amount).toBe(100_000n);
    expect(tx.getOutput(1).bip32Derivation?.[0]?.[1]).toEqual({ fingerprint: master.fingerprint, path: [84 + H, 1 + H, H, 1, 7] });
    expect(tx.getOutput(0).amount).toBe(60_000n);
  });

  it("deducts the fee from the customer's amount when asked", () => {
    expect(buildRefundPsbt(base({ deductNetworkFee: true }))).toMatchObject({
      ok: true,
      fee: WITH_CHANGE * 2n,
      toCustomer: 60_000n - WITH_CHANGE * 2n,
      change: 40_000n,
    });
  });

  it("takes the fee from the customer when the refund spends everything, and leaves a change below dust to the fee", () => {
    expect(buildRefundPsbt(base({ amount: 100_000n }))).toMatchObject({
      ok: true,
      fee: WITHOUT_CHANGE * 2n,
      toCustomer: 100_000n - WITHOUT_CHANGE * 2n,
      change: 0n,
    });
    // 100 sat over: the change would be dust, so the customer gets the amount and the fee takes the rest.
    expect(buildRefundPsbt(base({ amount: 100_000n - WITHOUT_CHANGE * 2n - 100n }))).toMatchObject({
      ok: true,
      fee: WITHOUT_CHANGE * 2n + 100n,
      change: 0n,
    });
  });

  it("refuses when the customer would get dust or nothing, and when the outputs do not cover the amount", () => {
    expect(buildRefundPsbt(base({ amount: 500n, deductNetworkFee: true }))).toMatchObject({ ok: false, problem: "dust", dust: 294n });
    expect(buildRefundPsbt(base({ amount: 100_001n }))).toEqual({ ok: false, problem: "not_covered", total: 100_000n });
  });

  it("computes the fee from a decimal rate exactly, and Core's dust limits", () => {
    expect(feeFor(562, "1.5")).toBe(212n); // 141 vB × 1.5 = 211.5 → 212
    expect(feeFor(440, "1")).toBe(110n);
    expect(dustOf(outputScript(regtest, destination))).toBe(294n);
    expect(dustOf(Uint8Array.from([0x76, 0xa9, 0x14, ...new Uint8Array(20), 0x88, 0xac]))).toBe(546n);
  });

  it("leaves the key origins out of a wallet set without one", () => {
    const built = buildRefundPsbt(base({ keyOrigin: null }));
    if (!built.ok) throw new Error("not built");
    expect(Transaction.fromPSBT(base64.decode(built.psbt)).getInput(0).bip32Derivation).toBeUndefined();
  });
});

describe("the refund rails' instructions for LTC, without a node", () => {
  const ltcRails = (keyOrigin: string | null) =>
    new RefundRails({
      rails: new HdWalletRails({ utxoTestChains: { LTC: "regtest" } }),
      wallets: async (walletId) => (walletId === 1 ? { extendedPublicKey: VPUB, keyOrigin } : null),
      utxoTestChains: { LTC: "regtest" },
    });
  const destination = p2wpkhAddress("rltc", new Uint8Array(20).fill(9));
  const request = {
    coin: "LTC",
    network: "litecoin",
    isLive: false,
    walletId: 1,
    derivationIndex: 3,
    paymentAddress: p2wpkhAddress("rltc", new Uint8Array(20).fill(1)),
    receipts: [{ key: `${"ab".repeat(32)}:0`, txHash: "ab".repeat(32), amount: "0.001" }],
    destination,
    amount: "0.0004",
    feeRate: "2",
    deductNetworkFee: false,
  };

  it("builds the PSBT and the BIP 21 URI, with the origin from the stored setting", async () => {
    const got = await ltcRails(`${FINGERPRINT}/84'/1'/0'`).instructions(request);
    expect(got).toMatchObject({
      uri: `litecoin:${destination}?amount=0.0004`,
      networkFee: "0.00000282",
      amountToCustomer: "0.0004",
      keyOriginMissing: null,
    });
    const tx = Transaction.fromPSBT(base64.decode(got.psbt as string));
    expect(tx.getInput(0).bip32Derivation?.[0]?.[1]).toEqual({ fingerprint: master.fingerprint, path: [84 + H, 1 + H, H, 0, 3] });
  });

  it("tells a merchant whose wallet has no origin what to add", async () => {
    const got = await ltcRails(null).instructions(request);
    expect(got.psbt).not.toBeNull();
    expect(got.keyOriginMissing).toBe(
      "The LTC test wallet is set without its key origin, so a wallet cannot tell which of its keys signs this PSBT. " +
        "Set the wallet as [fingerprint/84'/1'/0']vpub… — the fingerprint is shown by your wallet as the master fingerprint " +
        "(Sparrow: Settings → Keystore; Electrum: Wallet → Information; a hardware wallet shows it when exporting its xpub), " +
        "the path is the account's derivation path.",
    );
  });

  it("refuses with the core's errors: dust after the fee, receipts that are no chain outputs, an unknown wallet, no index", async () => {
    await expect(ltcRails(null).instructions({ ...request, amount: "0.000005", deductNetworkFee: true })).rejects.toMatchObject({
      code: "invalid_state",
      reason: "refund_below_dust",
      message:
        "After its network fee of 0.00000282 LTC, the refund would pay the customer 0.00000218 LTC, below the dust limit of 0.00000294 LTC that nodes relay; refund more, or choose a lower fee_rate",
    });
    await expect(ltcRails(null).instructions({ ...request, amount: "0.000002", deductNetworkFee: true })).rejects.toMatchObject({
      reason: "refund_below_dust",
      message:
        "The network fee of 0.00000282 LTC takes all of this refund: nothing would reach the customer; refund more, or choose a lower fee_rate",
    });
    await expect(ltcRails(null).instructions({ ...request, receipts: [{ key: "test:1", txHash: null, amount: "0.001" }] })).rejects.toMatchObject({
      code: "invalid_state",
      reason: "refund_not_spendable",
      message: "No refund transaction can be built: none of the payment's receipts is a chain output (txid:vout) that a transaction can spend",
    });
    await expect(ltcRails(null).instructions({ ...request, walletId: 2 })).rejects.toMatchObject({
      reason: "refund_not_spendable",
      message: "No refund transaction can be built: the wallet that received the payment is no longer known",
    });
    // Only a deposit forwarder's payment has no index (an EVM one): a UTXO payment without one is refused, not guessed.
    await expect(ltcRails(null).instructions({ ...request, derivationIndex: null })).rejects.toMatchObject({
      reason: "refund_not_spendable",
      message: "No refund transaction can be built: the payment address is at no index of the merchant's key",
    });
  });
});

describe("which transactions pay a refund (the refund watcher's reading)", () => {
  const receipt = (key: string, txHash: string | null, amount: string, confirmations: number, replaceable = false) => ({
    key,
    txHash,
    amount: new Decimal(amount),
    confirmations,
    blockHeight: null,
    ...(replaceable ? { replaceable: true } : {}),
  });

  it("sums a transaction's outputs to the destination, keeps those paying at least the amount, and never counts a replaceable one at 0 confirmations", () => {
    const paying = payingTransactions(
      [
        receipt("AA:0", "AA", "0.3", 2),
        receipt("AA:1", "AA", "0.2", 2),
        receipt("bb:0", "bb", "0.49", 5),
        receipt("cc:0", "cc", "0.6", 0, true),
        receipt("balance:internal:confirmed", null, "9", 3),
      ],
      new Decimal("0.5"),
    );
    expect([...paying]).toEqual([
      ["aa", 2],
      ["cc", -1],
    ]);
  });
});
