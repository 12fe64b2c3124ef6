// TRON addresses from the merchant's account key, checked against published vectors; the two forms
// of an address; refund addresses with the reason of each refusal; the account key's checks; and
// what the QR code of a TRON payment holds.
import { HDKey } from "@scure/bip32";
import { pbkdf2 } from "@noble/hashes/pbkdf2.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { hexToBytes } from "@noble/hashes/utils.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { Decimal } from "decimal.js";
import { describe, expect, it } from "vitest";
import { PngQrRenderer } from "../../src/rails/qr/index.ts";
import {
  checkTronAccountKey,
  checkTronAddress,
  checkTronRefundAddress,
  createTronTestWallet,
  deriveTronAddress,
  TRON_BURN_ADDRESS,
  tronAddressFromHex,
  tronAddressOf,
  tronAddressToHex,
  tronPaymentUri,
  tronReceiveChain,
  TronWalletRails,
} from "../../src/rails/wallets/tron.ts";
import { USDT_TRON_CONTRACT, USDT_TRON_NILE_CONTRACT } from "../../src/core/networks.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { decodeQr } from "../support/qr.ts";

/** BIP39 seed of a mnemonic without passphrase (PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic"). */
const bip39Seed = (mnemonic: string) => pbkdf2(sha512, mnemonic.normalize("NFKD"), "mnemonic", { c: 2048, dkLen: 64 });
const ABANDON_ABOUT = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const account = HDKey.fromMasterSeed(bip39Seed(ABANDON_ABOUT)).derive("m/44'/195'/0'");

describe("TRON receive addresses (BIP44 coin type 195, Keccak-256, 0x41, base58check)", () => {
  it("derives the published address of the abandon…about mnemonic at m/44'/195'/0'/0/0 from the account's xpub", () => {
    // The TRON Ledger app's test seed and its expected address: klever-io/trx-ledger (the app Ledger
    // ships as LedgerHQ/app-tron), tests/test_trx.py (LEDGER_MNEMONIC "abandon … about") and
    // examples/getPublicKey.py ("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH" for 44'/195'/0'/0/0).
    const chain = tronReceiveChain(true, account.publicExtendedKey);
    expect(deriveTronAddress(chain, 0)).toBe("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH");
    // The private path gives the same address: the xpub's public derivation is BIP32's.
    const key = account.derive("m/0/0").publicKey;
    if (!key) throw new Error("no public key");
    expect(tronAddressOf(key)).toBe("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH");
  });

  it("gives a different address for each index, each the one the private key of that path has", () => {
    const chain = tronReceiveChain(true, account.publicExtendedKey);
    const addresses = Array.from({ length: 20 }, (_, i) => deriveTronAddress(chain, i));
    expect(new Set(addresses).size).toBe(20);
    for (const i of [1, 7, 19]) {
      const privateKey = account.derive(`m/0/${i}`).privateKey;
      if (!privateKey) throw new Error("no private key");
      expect(addresses[i]).toBe(tronAddressOf(secp256k1.getPublicKey(privateKey, false)));
    }
    expect(() => deriveTronAddress(chain, -1)).toThrow(RangeError);
    expect(() => deriveTronAddress(chain, 2 ** 31)).toThrow(RangeError);
  });

  it("turns public keys into the addresses of Trust Wallet Core's vectors", () => {
    // trustwallet/wallet-core, tests/chains/Tron/AddressTests.cpp (FromPublicKey).
    const of = (hex: string) => tronAddressOf(secp256k1.getPublicKey(hexToBytes(hex), false));
    expect(of("2d8f68944bdbfbc0769542fba8fc2d2a3de67393334471624364c7006da2aa54")).toBe("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC");
    expect(of("be88df1d0bf30a923cb39c3bb953178baaf3726e8d3ce81e7c8462e046e0d835")).toBe("THRF3GuPnvvPzKoaT8pJex5XHmo8NNbCb3");
    // A compressed key gives the same address.
    expect(tronAddressOf(secp256k1.getPublicKey(hexToBytes("2d8f68944bdbfbc0769542fba8fc2d2a3de67393334471624364c7006da2aa54"), true))).toBe(
      "TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC",
    );
  });
});

describe("the two forms of a TRON address", () => {
  it("converts base58 to the JSON-RPC's 20-byte hex and back, for Tether's contracts", () => {
    // Tether on TRON: TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t is 41a614f803b6fd780986a42c78ec9c7f77e6ded13c in TRON's HTTP API.
    expect(tronAddressToHex(USDT_TRON_CONTRACT)).toBe("0xa614f803b6fd780986a42c78ec9c7f77e6ded13c");
    expect(tronAddressFromHex("41a614f803b6fd780986a42c78ec9c7f77e6ded13c")).toBe(USDT_TRON_CONTRACT);
    expect(tronAddressFromHex("0xA614F803B6FD780986A42C78EC9C7F77E6DED13C")).toBe(USDT_TRON_CONTRACT);
    expect(tronAddressFromHex(tronAddressToHex(USDT_TRON_NILE_CONTRACT))).toBe(USDT_TRON_NILE_CONTRACT);
    // The burn address is twenty zero bytes.
    expect(tronAddressFromHex(`0x${"0".repeat(40)}`)).toBe(TRON_BURN_ADDRESS);
  });

  it("refuses what is not a hex address, and throws on a bad base58 one", () => {
    expect(() => tronAddressFromHex("0xa614f803b6fd780986a42c78ec9c7f77e6ded1")).toThrow("is not a hex TRON address (0x or 41, then 40 hex digits)");
    expect(() => tronAddressFromHex("42a614f803b6fd780986a42c78ec9c7f77e6ded13c")).toThrow(RangeError);
    expect(() => tronAddressToHex("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u")).toThrow(
      '"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u" has a checksum that does not match, so it was mistyped or cut short',
    );
  });
});

describe("TRON refund addresses", () => {
  it("accepts a well-formed address, giving its hex form", () => {
    expect(checkTronAddress("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC")).toEqual({ ok: true, hex: tronAddressToHex("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC") });
    expect(checkTronRefundAddress("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC", USDT_TRON_CONTRACT).ok).toBe(true);
  });

  it("says what is wrong with each kind of bad address", () => {
    const reason = (address: string) => {
      const check = checkTronAddress(address);
      return check.ok ? "accepted" : check.reason;
    };
    expect(reason("")).toBe("is empty");
    expect(reason(" TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC")).toBe("has leading or trailing whitespace");
    expect(reason("0xa614f803b6fd780986a42c78ec9c7f77e6ded13c")).toBe(
      "is a hex address; give the TRON address in its usual form, 34 characters starting with T",
    );
    expect(reason("41a614f803b6fd780986a42c78ec9c7f77e6ded13c")).toBe(
      "is a hex address; give the TRON address in its usual form, 34 characters starting with T",
    );
    expect(reason("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDe")).toBe("is 33 characters long; a TRON address has 34, starting with T");
    expect(reason("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")).toBe("is 42 characters long; a TRON address has 34, starting with T");
    expect(reason("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDe0")).toBe(
      "has characters that are not base58 (0, O, I and l are not used); a TRON address has 34 characters starting with T",
    );
    // One character changed.
    expect(reason("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeD")).toBe("has a checksum that does not match, so it was mistyped or cut short");
    // A Bitcoin P2PKH address is base58check of 21 bytes too, with version byte 0x00.
    expect(reason("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2")).toBe("is not a TRON address (a TRON address starts with T: version byte 0x41, got 0x00)");
  });

  it("refuses the burn address and the token contract itself, where whatever is sent is lost", () => {
    expect(checkTronRefundAddress(TRON_BURN_ADDRESS)).toEqual({ ok: false, reason: "is TRON's burn address: whatever is sent there is lost" });
    expect(checkTronRefundAddress(USDT_TRON_CONTRACT, USDT_TRON_CONTRACT)).toEqual({
      ok: false,
      reason: "is the token's contract itself: tokens sent there are lost",
    });
    expect(checkTronRefundAddress("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeD", USDT_TRON_CONTRACT)).toEqual({
      ok: false,
      reason: "has a checksum that does not match, so it was mistyped or cut short",
    });
  });
});

describe("the merchant's TRON account key", () => {
  it("takes the account xpub in both modes and a tpub in test mode only", () => {
    const tpub = serializeKey(account, "tpub");
    expect(checkTronAccountKey(true, account.publicExtendedKey).ok).toBe(true);
    expect(checkTronAccountKey(false, account.publicExtendedKey).ok).toBe(true);
    expect(checkTronAccountKey(false, tpub).ok).toBe(true);
    expect(checkTronAccountKey(true, tpub)).toEqual({
      ok: false,
      reason:
        "expected a mainnet key (xpub) for TRON in live mode, got a testnet key (tpub); TRON wallets export the account m/44'/195'/0' as an xpub",
    });
    // The same account gives the same addresses in either serialisation.
    expect(deriveTronAddress(tronReceiveChain(false, tpub), 3)).toBe(deriveTronAddress(tronReceiveChain(true, account.publicExtendedKey), 3));
  });

  it("refuses a private key, a key that is not the account's, and garbage, saying why", () => {
    const refusal = (isLive: boolean, key: string) => {
      const check = checkTronAccountKey(isLive, key);
      return check.ok ? "accepted" : check.reason;
    };
    expect(refusal(true, account.privateExtendedKey)).toMatch(/^this is a private key \(xprv\)\. Never give the server a private key/);
    expect(refusal(true, account.derive("m/0").publicExtendedKey)).toBe(
      "expected an account-level key (depth 3, e.g. m/44'/195'/0') for TRON in live mode, got a key at depth 4 (a chain key below the account, like …/0); export the account's extended public key from the wallet",
    );
    expect(refusal(true, "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH")).toBe(
      "this is a TRON address, not an account key; give the extended public key of the account m/44'/195'/0' (xpub), from which a fresh address is derived for each payment",
    );
    expect(refusal(false, "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH")).toMatch(/\(tpub or xpub\)/);
    expect(refusal(true, account.publicExtendedKey.slice(0, -1))).toBe(
      "the key's checksum does not match, so it was mistyped or cut short; expected a mainnet key (xpub) for TRON in live mode",
    );
    expect(() => tronReceiveChain(true, "nonsense")).toThrow(/^Bad TRON extended public key: /);
  });

  it("makes a fresh test wallet whose key test mode takes and live mode refuses", () => {
    const key = createTronTestWallet();
    expect(key.startsWith("tpub")).toBe(true);
    expect(checkTronAccountKey(false, key).ok).toBe(true);
    expect(checkTronAccountKey(true, key).ok).toBe(false);
    expect(createTronTestWallet()).not.toBe(key);
    expect(deriveTronAddress(tronReceiveChain(false, key), 0)).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  });
});

describe("the payment URI and QR code of a TRON payment", () => {
  it("is the plain address, which the QR code decodes back to", async () => {
    const address = deriveTronAddress(tronReceiveChain(true, account.publicExtendedKey), 5);
    expect(tronPaymentUri(address)).toBe(address);
    const { text } = decodeQr(await new PngQrRenderer().dataUrl(tronPaymentUri(address)));
    expect(text).toBe(address);
    expect(() => tronPaymentUri("0xa614f803b6fd780986a42c78ec9c7f77e6ded13c")).toThrow(RangeError);
  });
});

describe("TronWalletRails: TRON's rows of the networks table", () => {
  const rails = new TronWalletRails();

  it("derives, checks keys and makes test wallets as the functions above do", () => {
    expect(rails.deriveAddress(true, account.publicExtendedKey, 0)).toBe("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH");
    expect(rails.deriveAddress(true, account.publicExtendedKey, 0)).toBe("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH"); // from the cache
    expect(new TronWalletRails({ keyCacheSize: 0 }).deriveAddress(true, account.publicExtendedKey, 1)).toBe("TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK");
    expect(() => rails.deriveAddress(true, serializeKey(account, "tpub"), 0)).toThrow(
      /^Bad TRON extended public key: expected a mainnet key \(xpub\)/,
    );
    expect(rails.checkExtendedPublicKey(true, account.publicExtendedKey)).toEqual({ ok: true });
    expect(rails.checkExtendedPublicKey(true, "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH")).toMatchObject({ ok: false });
    expect(rails.checkExtendedPublicKey(false, rails.createTestWallet())).toEqual({ ok: true });
  });

  it("knows USDT's contract per mode and refuses it as a refund address, saying why", () => {
    expect(rails.contract("USDT", true)).toBe(USDT_TRON_CONTRACT);
    expect(rails.contract("USDT", false)).toBe(USDT_TRON_NILE_CONTRACT);
    expect(rails.contract("BTC", true)).toBeNull();
    expect(rails.refundAddressProblem("USDT", true, USDT_TRON_CONTRACT)).toBe("is the token's contract itself: tokens sent there are lost");
    expect(rails.refundAddressProblem("USDT", false, USDT_TRON_CONTRACT)).toBeNull(); // mainnet's contract is an address like any on Nile
    expect(rails.refundAddressProblem("USDT", true, "0xa614f803b6fd780986a42c78ec9c7f77e6ded13c")).toMatch(/^is a hex address/);
    expect(rails.isValidAddress("USDT", true, "TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC")).toBe(true);
    expect(rails.isValidAddress("USDT", true, TRON_BURN_ADDRESS)).toBe(false);
  });

  it("takes another test-mode contract (a local chain), and refuses one that is not a TRON address", () => {
    const local = tronAddressFromHex(`0x${"ab".repeat(20)}`);
    expect(new TronWalletRails({ tokenContracts: { "USDT:tron": { test: local } } }).contract("USDT", false)).toBe(local);
    expect(() => new TronWalletRails({ tokenContracts: { "USDT:tron": { test: "0xabababababababababababababababababababab" } } })).toThrow(
      'tokenContracts.USDT:tron.test "0xabababababababababababababababababababab" is a hex address; give the TRON address in its usual form, 34 characters starting with T',
    );
  });

  it("gives the plain address as the payment URI, refusing a non-positive amount", () => {
    expect(rails.paymentUri("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC", new Decimal("12.5"))).toBe("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC");
    expect(() => rails.paymentUri("TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC", new Decimal(0))).toThrow(RangeError);
  });
});
