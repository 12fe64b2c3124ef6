// The sweep tool's keys (tools/sweep/keys.ts; docs/settlement.md, Sweeping fresh addresses) without a
// node: a BIP-39 mnemonic with its account path gives the addresses wallets give (the well-known
// "abandon … about" vector), an extended private key is matched against the plan's account key, and
// a refused key is named without its text. The tool on a chain is test/e2e/sweep-anvil.test.ts.
// No database: this file runs once per CI run (vitest.config.ts).
import { HDKey } from "@scure/bip32";
import { describe, expect, it } from "vitest";
import { serializeKey } from "../support/hd-keys.ts";
import { accountKey, evmChild, feeWalletKey, KeyError, sameAccount } from "../../tools/sweep/keys.ts";

const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

describe("the sweep tool's keys", () => {
  it("derives a mnemonic's Ethereum account as wallets do (m/44'/60'/0'/0/0 of the BIP-39 test vector)", () => {
    const account = accountKey(MNEMONIC, "m/44'/60'/0'");
    expect(evmChild(account, 0).address).toBe("0x9858EfFD232B4033E47d90003D41EC34EcaEda94");
  });

  it("reads an extended private key of any version and knows its account by the public key and chain code", () => {
    const account = HDKey.fromMasterSeed(new Uint8Array(32).fill(7)).derive("m/44'/60'/1'");
    const read = accountKey(serializeKey(account, "tpub", "private"), undefined);
    expect(sameAccount(read, serializeKey(account, "xpub"))).toBe(true);
    expect(sameAccount(read, serializeKey(HDKey.fromMasterSeed(new Uint8Array(32).fill(8)).derive("m/44'/60'/1'"), "tpub"))).toBe(false);
    expect(evmChild(read, 5).address).toBe(evmChild(account, 5).address);
  });

  it("refuses a public key, a mnemonic without its path, a bad key and a bad fee wallet key, never quoting them", () => {
    const account = HDKey.fromMasterSeed(new Uint8Array(32).fill(9)).derive("m/44'/60'/0'");
    const cases: [() => unknown, string][] = [
      [() => accountKey(serializeKey(account, "tpub"), undefined), "the account key is a public key: the sweep needs the private key of the account"],
      [() => accountKey(MNEMONIC, undefined), "a mnemonic needs --path, the account's derivation path (m/44'/60'/0' for the first Ethereum account)"],
      [() => accountKey(MNEMONIC, "44/60/0"), "--path must look like m/44'/60'/0' (got '44/60/0')"],
      [() => accountKey("tprv8ZgxMBicQKsPsecretbutbroken", undefined), "the account key is not an extended key (its base58 or checksum is wrong)"],
      [() => accountKey("two words", undefined), "the account key is neither an extended private key nor a mnemonic of 12 to 24 words"],
      [() => feeWalletKey("0xabc"), "the fee wallet key must be 64 hex digits (a raw secp256k1 private key)"],
      [() => feeWalletKey("0".repeat(64)), "the fee wallet key is not a valid secp256k1 private key"],
    ];
    for (const [attempt, message] of cases) {
      expect(attempt).toThrow(KeyError);
      expect(attempt).toThrow(message);
    }
  });
});
