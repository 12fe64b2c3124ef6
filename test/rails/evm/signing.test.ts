// The fee payer's signing without a node: the address of a key, and what a transaction refuses.
// forwarders-anvil.test.ts sends every flush signed this way to anvil, which takes it from the fee
// payer's address and charges its gas there. No database.
import { hexToBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { addressOfPrivateKey, signEip1559 } from "../../../src/rails/evm/signing.ts";

const KEY_ONE = hexToBytes(`${"0".repeat(63)}1`);
const tx = {
  chainId: 31337n,
  nonce: 0n,
  maxPriorityFeePerGas: 1n,
  maxFeePerGas: 2_000_000_000n,
  gas: 21_000n,
  to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  value: 10n ** 18n,
  data: "0x",
};

describe("the fee payer's signing", () => {
  it("gives the well-known address of private key 1", () => {
    expect(addressOfPrivateKey(KEY_ONE)).toBe("0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf");
  });

  it("signs the same transaction the same way (RFC 6979), as a type 2 envelope", () => {
    const raw = signEip1559(tx, KEY_ONE);
    expect(raw).toMatch(/^0x02f8[0-9a-f]+$/);
    expect(signEip1559(tx, KEY_ONE)).toBe(raw);
    expect(signEip1559({ ...tx, nonce: 1n }, KEY_ONE)).not.toBe(raw);
  });

  it("refuses a negative amount", () => {
    expect(() => signEip1559({ ...tx, value: -1n }, KEY_ONE)).toThrow("a quantity is never negative");
  });
});
