// Deposit forwarders on a real node (issue 40): the factory and the test tokens from their committed
// bytecode on anvil, every flush a real transaction signed by a fee payer that holds only ETH.
// Customers pay the address paygate computes off chain; the flush creates the forwarder if needed
// and moves tokens and coin to the merchant's settlement address, and nowhere else. No database.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cloneCodeHash,
  type Deposit,
  encodeFlush,
  FORWARDED_TOPIC,
  factoryRuntimeCode,
  flushOutcomes,
  forwarderAddress,
  implementationOf,
  implementationRuntimeCode,
  paymentSalt,
} from "../../../src/rails/evm/forwarders.ts";
import { toChecksumAddress } from "../../../src/rails/wallets/addresses.ts";
import { startAnvil, type Anvil } from "../../support/anvil.ts";
import {
  abiCall,
  balanceOf,
  callWord,
  codeAt,
  coinBalance,
  deployFactory,
  deployTest,
  FORWARDERS,
  fundedSigner,
  mint,
  type Receipt,
  type Signer,
} from "../../support/forwarders.ts";

const ETH = 10n ** 18n;
const USDT = 10n ** 6n;

let anvil: Anvil;
let factory: string;
let feePayer: Signer;
let usdt: string;
let bep20: string;
/** The merchant's settlement address: an address of its own wallet. */
let merchant: string;

const newAddress = () => toChecksumAddress(randomBytes(20).toString("hex"));
const deposit = (destination: string, reference = randomBytes(8).toString("hex")): Deposit => ({ destination, salt: paymentSalt(reference) });

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31337 });
  factory = await deployFactory(anvil);
  usdt = await deployTest(anvil, "UsdtLike");
  bep20 = await deployTest(anvil, "Bep20Like");
  feePayer = await fundedSigner(anvil, 10n * ETH);
  merchant = newAddress();
});
afterAll(() => anvil?.stop());

/** The deposits each flush was sent for, to read its logs with. */
const flushed = new WeakMap<Receipt, Deposit[]>();

async function flush(deposits: Deposit[], tokens: string[]): Promise<Receipt> {
  const receipt = await feePayer.send({ to: factory, data: encodeFlush(deposits, tokens) });
  expect(receipt.status).toBe("0x1");
  flushed.set(receipt, deposits);
  return receipt;
}

const outcomes = (receipt: Receipt, deposits = flushed.get(receipt) ?? []) => flushOutcomes(factory, deposits, receipt.logs);

describe("deposit forwarders on anvil", () => {
  it("gives every payment the address paygate computes off chain: the factory's own computation and the created forwarder agree", async () => {
    const onChainImplementation = toChecksumAddress((await callWord(anvil, factory, abiCall("implementation()"))).toString(16).padStart(40, "0"));
    expect(onChainImplementation).toBe(implementationOf(factory));
    // The code at both addresses is the committed runtime code with its immutables: a factory can be checked before use.
    expect(await codeAt(anvil, factory)).toBe(factoryRuntimeCode(factory));
    expect(await codeAt(anvil, onChainImplementation)).toBe(implementationRuntimeCode(factory));
    expect(await codeAt(anvil, usdt)).not.toBe(factoryRuntimeCode(usdt));
    const hash = await callWord(anvil, factory, abiCall("cloneCodeHash()"));
    expect(hash.toString(16).padStart(64, "0")).toBe(Buffer.from(cloneCodeHash(implementationOf(factory))).toString("hex"));

    for (const d of [deposit(merchant, "txn_1"), deposit(merchant, "txn_2"), deposit(newAddress(), "txn_1")]) {
      const word = await callWord(anvil, factory, abiCall("forwarderAddress(address,bytes32)", d.destination, d.salt));
      expect(toChecksumAddress(word.toString(16).padStart(40, "0"))).toBe(forwarderAddress(factory, d));
    }
    // Unique per payment and per destination.
    const addresses = new Set([deposit(merchant, "a"), deposit(merchant, "b"), deposit(newAddress(), "a")].map((d) => forwarderAddress(factory, d)));
    expect(addresses.size).toBe(3);

    // Created by a flush, the forwarder is there, as the 45-byte EIP-1167 clone of the implementation.
    const d = deposit(merchant);
    const at = forwarderAddress(factory, d);
    expect(await codeAt(anvil, at)).toBe("0x");
    await flush([d], []);
    expect(await codeAt(anvil, at)).toBe(`0x363d3d373d3d3d363d73${implementationOf(factory).slice(2).toLowerCase()}5af43d82803e903d91602b57fd5bf3`);
  });

  it("moves a USDT-like token (transfer returns nothing), an 18-decimal BEP-20 and coin sent before the forwarder existed, in the flush that creates it", async () => {
    const d = deposit(merchant);
    const paid = forwarderAddress(factory, d);
    await mint(anvil, usdt, paid, 25n * USDT);
    await mint(anvil, bep20, paid, 3n * ETH + 1n); // to the last of 18 decimals
    await anvil.sendTransaction({ to: paid, value: ETH / 2n });
    const before = {
      usdt: await balanceOf(anvil, usdt, merchant),
      bep20: await balanceOf(anvil, bep20, merchant),
      coin: await coinBalance(anvil, merchant),
    };
    const payerBefore = await coinBalance(anvil, feePayer.address);

    const receipt = await flush([d], [usdt, bep20]);

    expect(outcomes(receipt)).toEqual([
      { kind: "forwarded", forwarder: paid, token: usdt, destination: merchant, amount: 25n * USDT },
      { kind: "forwarded", forwarder: paid, token: bep20, destination: merchant, amount: 3n * ETH + 1n },
      { kind: "forwarded", forwarder: paid, token: null, destination: merchant, amount: ETH / 2n },
    ]);
    expect(await balanceOf(anvil, usdt, merchant)).toBe(before.usdt + 25n * USDT);
    expect(await balanceOf(anvil, bep20, merchant)).toBe(before.bep20 + 3n * ETH + 1n);
    expect(await coinBalance(anvil, merchant)).toBe(before.coin + ETH / 2n);
    expect([await balanceOf(anvil, usdt, paid), await balanceOf(anvil, bep20, paid), await coinBalance(anvil, paid)]).toEqual([0n, 0n, 0n]);
    // The fee payer only paid gas.
    const gasPaid = payerBefore - (await coinBalance(anvil, feePayer.address));
    expect(gasPaid > 0n && gasPaid <= BigInt(receipt.gasUsed) * 2_000_000_000n).toBe(true);
  });

  it("moves what arrives after creation at the next flush; a flush with nothing to move moves nothing", async () => {
    const d = deposit(merchant);
    const paid = forwarderAddress(factory, d);
    await mint(anvil, usdt, paid, 5n * USDT);
    await flush([d], [usdt]);
    expect(await codeAt(anvil, paid)).not.toBe("0x");

    // A late payment: coin from a wallet that estimates gas, and more of the token.
    await anvil.sendTransaction({ to: paid, value: ETH / 10n });
    await mint(anvil, usdt, paid, 7n * USDT);
    const second = await flush([d], [usdt]);
    expect(outcomes(second)).toEqual([
      { kind: "forwarded", forwarder: paid, token: usdt, destination: merchant, amount: 7n * USDT },
      { kind: "forwarded", forwarder: paid, token: null, destination: merchant, amount: ETH / 10n },
    ]);

    const third = await flush([d], [usdt, bep20]);
    expect(outcomes(third)).toEqual([]);
    expect(third.logs).toEqual([]);
  });

  it("leaves a token that returns false, one that reverts and one that is no contract where they are, and moves the others", async () => {
    const falseToken = await deployTest(anvil, "FalseToken");
    const reverting = await deployTest(anvil, "RevertingToken");
    const notAToken = newAddress();
    const d = deposit(merchant);
    const paid = forwarderAddress(factory, d);
    await mint(anvil, falseToken, paid, 11n);
    await mint(anvil, reverting, paid, 12n);
    await mint(anvil, usdt, paid, 13n);

    const receipt = await flush([d], [falseToken, reverting, notAToken, usdt]);

    expect(outcomes(receipt)).toEqual([
      { kind: "forward_failed", forwarder: paid, token: falseToken, destination: merchant, amount: 11n },
      { kind: "forward_failed", forwarder: paid, token: reverting, destination: merchant, amount: 12n },
      { kind: "forward_failed", forwarder: paid, token: notAToken, destination: merchant, amount: 0n },
      { kind: "forwarded", forwarder: paid, token: usdt, destination: merchant, amount: 13n },
    ]);
    expect(await balanceOf(anvil, falseToken, paid)).toBe(11n);
    expect(await balanceOf(anvil, reverting, paid)).toBe(12n);
    expect(await balanceOf(anvil, usdt, paid)).toBe(0n);
  });

  it("keeps the coin when the destination refuses it, and still moves the tokens", async () => {
    const refusing = await deployTest(anvil, "RefusingDestination");
    const d = deposit(refusing);
    const paid = forwarderAddress(factory, d);
    await anvil.sendTransaction({ to: paid, value: ETH });
    await mint(anvil, usdt, paid, 9n);

    const receipt = await flush([d], [usdt]);

    expect(outcomes(receipt)).toEqual([
      { kind: "forwarded", forwarder: paid, token: usdt, destination: refusing, amount: 9n },
      { kind: "forward_failed", forwarder: paid, token: null, destination: refusing, amount: ETH },
    ]);
    expect(await coinBalance(anvil, paid)).toBe(ETH);
    expect(await coinBalance(anvil, refusing)).toBe(0n);
  });

  it("gives a destination bounded gas for the coin: one that burns it all keeps its coin unsent and blocks no other forwarder", async () => {
    const burner = await deployTest(anvil, "GasBurner");
    const [burning, fine] = [deposit(burner), deposit(merchant)];
    for (const d of [burning, fine]) await anvil.sendTransaction({ to: forwarderAddress(factory, d), value: ETH / 4n });
    const before = await coinBalance(anvil, merchant);

    const receipt = await flush([burning, fine], []);

    expect(outcomes(receipt)).toEqual([
      { kind: "forward_failed", forwarder: forwarderAddress(factory, burning), token: null, destination: burner, amount: ETH / 4n },
      { kind: "forwarded", forwarder: forwarderAddress(factory, fine), token: null, destination: merchant, amount: ETH / 4n },
    ]);
    expect(await coinBalance(anvil, forwarderAddress(factory, burning))).toBe(ETH / 4n);
    expect(await coinBalance(anvil, merchant)).toBe(before + ETH / 4n);
  });

  it("flushes the other forwarders of a batch when one cannot be flushed (other code at its address)", async () => {
    const [a, broken, c] = [deposit(merchant), deposit(merchant), deposit(merchant)];
    for (const d of [a, broken, c]) await mint(anvil, usdt, forwarderAddress(factory, d), 100n);
    // Code that always reverts, where the broken deposit's forwarder would be.
    await anvil.setCode(forwarderAddress(factory, broken), "0x60006000fd");

    const receipt = await flush([a, broken, c], [usdt]);

    expect(outcomes(receipt)).toEqual([
      { kind: "forwarded", forwarder: forwarderAddress(factory, a), token: usdt, destination: merchant, amount: 100n },
      { kind: "flush_failed", forwarder: forwarderAddress(factory, broken) },
      { kind: "forwarded", forwarder: forwarderAddress(factory, c), token: usdt, destination: merchant, amount: 100n },
    ]);
    expect(await balanceOf(anvil, usdt, forwarderAddress(factory, broken))).toBe(100n);
  });

  it("never flushes to the zero address or to the factory itself: what was paid stays", async () => {
    for (const destination of [`0x${"0".repeat(40)}`, factory]) {
      const d = deposit(destination);
      // The chain's own computation: paygate refuses to hand such an address out at all.
      const word = await callWord(anvil, factory, abiCall("forwarderAddress(address,bytes32)", d.destination, d.salt));
      const paid = toChecksumAddress(word.toString(16).padStart(40, "0"));
      await mint(anvil, usdt, paid, 8n);

      const receipt = await flush([d, deposit(merchant)], [usdt]);

      expect(outcomes(receipt)).toEqual([{ kind: "flush_failed", forwarder: paid }]);
      expect(await codeAt(anvil, paid)).toBe("0x");
      expect(await balanceOf(anvil, usdt, paid)).toBe(8n);
    }
  });

  it("refuses a token calling back into the factory during its transfer: the transfer happens once", async () => {
    const reentrant = await deployTest(anvil, "Reentrant");
    const d = deposit(merchant);
    const paid = forwarderAddress(factory, d);
    await mint(anvil, reentrant, paid, 50n);
    // While paying the merchant, the token asks the factory to flush the same forwarder again.
    await anvil.sendTransaction({ to: reentrant, data: armCall(factory, encodeFlush([d], [reentrant])), gas: 500_000n });

    const receipt = await flush([d], [reentrant]);

    expect(outcomes(receipt)).toEqual([{ kind: "forwarded", forwarder: paid, token: reentrant, destination: merchant, amount: 50n }]);
    expect(await callWord(anvil, reentrant, abiCall("attempts()"))).toBe(1n);
    expect(await callWord(anvil, reentrant, abiCall("succeeded()"))).toBe(0n);
    expect(await balanceOf(anvil, reentrant, merchant)).toBe(50n);
  });

  it("refuses a destination calling back into the factory when it is paid: the coin arrives once", async () => {
    const destination = await deployTest(anvil, "Reentrant");
    const d = deposit(destination);
    const paid = forwarderAddress(factory, d);
    await anvil.sendTransaction({ to: paid, value: 2n * ETH });
    await anvil.sendTransaction({ to: destination, data: armCall(factory, encodeFlush([d], [])), gas: 500_000n });

    const receipt = await flush([d], []);

    expect(outcomes(receipt)).toEqual([{ kind: "forwarded", forwarder: paid, token: null, destination, amount: 2n * ETH }]);
    expect(await callWord(anvil, destination, abiCall("attempts()"))).toBe(1n);
    expect(await callWord(anvil, destination, abiCall("succeeded()"))).toBe(0n);
    expect(await coinBalance(anvil, destination)).toBe(2n * ETH);
  });

  it("never sends anywhere but the destination bound into the address: no setter, only the factory may flush, another destination is another address", async () => {
    const d = deposit(merchant);
    const paid = forwarderAddress(factory, d);
    await mint(anvil, usdt, paid, 40n);
    await flush([d], []); // created, the token left in it
    const thief = newAddress();

    // The forwarder's flush, called directly with another destination (by the fee payer's key or anyone's): refused.
    const direct = await feePayer.send({ to: paid, data: forwarderFlushCall(thief, [usdt]), gas: 200_000n });
    expect(direct.status).toBe("0x0");
    // The implementation itself refuses too.
    const implementation = await feePayer.send({ to: implementationOf(factory), data: forwarderFlushCall(thief, [usdt]), gas: 200_000n });
    expect(implementation.status).toBe("0x0");
    // The same salt with another destination is another forwarder: the paid one is not touched.
    const other = await flush([{ destination: thief, salt: d.salt }], [usdt]);
    expect(outcomes(other)).toEqual([]);
    expect(forwarderAddress(factory, { destination: thief, salt: d.salt })).not.toBe(paid);
    expect(await balanceOf(anvil, usdt, paid)).toBe(40n);
    expect(await balanceOf(anvil, usdt, thief)).toBe(0n);

    // Nothing in either contract can change where funds go: their only state-changing function is flush.
    for (const name of ["DepositForwarder", "ForwarderFactory"]) {
      const abi = FORWARDERS.contracts[name]?.abi as { type: string; name?: string; stateMutability?: string }[];
      const writes = abi.filter((e) => e.type === "function" && e.stateMutability !== "view" && e.stateMutability !== "pure").map((e) => e.name);
      expect(writes).toEqual(["flush"]);
    }
    // The forwarder stores nothing: its destination lives in its address alone.
    expect(await anvil.send("eth_getStorageAt", [paid, "0x0", "latest"])).toBe(`0x${"0".repeat(64)}`);

    // The rightful flush still works.
    const rightful = await flush([d], [usdt]);
    expect(outcomes(rightful)).toEqual([{ kind: "forwarded", forwarder: paid, token: usdt, destination: merchant, amount: 40n }]);
  });

  it("fails as a whole when given too little gas, rather than skip forwarders: the estimate is what every forwarder needs", async () => {
    const deposits = Array.from({ length: 10 }, () => deposit(merchant));
    for (const d of deposits) await mint(anvil, usdt, forwarderAddress(factory, d), 3n);
    const data = encodeFlush(deposits, [usdt]);
    const estimate = BigInt(String(await anvil.send("eth_estimateGas", [{ from: feePayer.address, to: factory, data }])));

    const short = await feePayer.send({ to: factory, data, gas: (estimate * 9n) / 10n });
    expect(short.status).toBe("0x0");
    expect(short.logs).toEqual([]);
    for (const d of deposits) expect(await balanceOf(anvil, usdt, forwarderAddress(factory, d))).toBe(3n);

    const enough = await feePayer.send({ to: factory, data, gas: estimate });
    expect(enough.status).toBe("0x1");
    expect(outcomes(enough, deposits).map((o) => o.kind)).toEqual(Array(10).fill("forwarded"));
  });

  it("flushes 100 forwarders, each created in the same transaction, within the estimate the fee payer signed", async () => {
    const deposits = Array.from({ length: 100 }, () => deposit(merchant));
    for (const d of deposits) await mint(anvil, usdt, forwarderAddress(factory, d), 1n * USDT);
    const receipt = await flush(deposits, [usdt]);
    const moved = outcomes(receipt);
    expect(moved).toHaveLength(100);
    expect(moved.every((o) => o.kind === "forwarded" && o.amount === USDT)).toBe(true);
    expect(receipt.logs.filter((l) => l.topics[0] === FORWARDED_TOPIC)).toHaveLength(100);
  });
});

/** Reentrant.arm(target, data). */
function armCall(target: string, data: string): string {
  const bytes = data.slice(2);
  const padded = bytes.padEnd(Math.ceil(bytes.length / 64) * 64, "0");
  const head = abiCall("arm(address,bytes)", target, 64n);
  return `${head}${BigInt(bytes.length / 2)
    .toString(16)
    .padStart(64, "0")}${padded}`;
}

/** DepositForwarder.flush(destination, tokens). */
function forwarderFlushCall(destination: string, tokens: string[]): string {
  const head = abiCall("flush(address,address[])", destination, 64n);
  return `${head}${BigInt(tokens.length).toString(16).padStart(64, "0")}${tokens.map((t) => BigInt(t).toString(16).padStart(64, "0")).join("")}`;
}
