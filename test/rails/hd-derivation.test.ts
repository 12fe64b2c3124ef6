// Published vectors for key parsing and address derivation.
import { describe, it, expect } from "vitest";
import { HDKey } from "@scure/bip32";
import { pbkdf2 } from "@noble/hashes/pbkdf2.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { hexToBytes } from "@noble/hashes/utils.js";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { readExtendedKey, KEY_FORMATS, versionsOf } from "../../src/rails/wallets/extended-keys.ts";
import { deriveReceiveAddress, evmAddressOf, p2wpkhAddress } from "../../src/rails/wallets/addresses.ts";
import { buildNetworkTable, type KeyPrefix } from "../../src/rails/wallets/networks.ts";
import { serializeKey } from "../support/hd-keys.ts";

/** An account-level key (m/purpose'/coin'/0'): depth 3, hardened child 0. */
const ACCOUNT_ZERO = { ok: true, depth: 3, childIndex: 0x80000000 };

const crypto = (slug: string): CryptoCurrency => {
  const found = cryptoBySlug(slug);
  if (!found) throw new Error(slug);
  return found;
};
const BTC = crypto("BTC");
const LTC = crypto("LTC");
const ETH = crypto("ETH");
const BNB = crypto("BNB");
const USDT = crypto("USDT");

const rails = new HdWalletRails();

const reserialize = (node: HDKey, prefix: KeyPrefix) => serializeKey(node, prefix);

function parsePublic(text: string): HDKey {
  const read = readExtendedKey(text);
  if (read.kind !== "public") throw new Error(`not a public key: ${JSON.stringify(read)}`);
  return read.node;
}

/** BIP39 seed of a mnemonic without passphrase (PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic"). */
function bip39Seed(mnemonic: string): Uint8Array {
  return pbkdf2(sha512, mnemonic.normalize("NFKD"), "mnemonic", { c: 2048, dkLen: 64 });
}
const ABANDON_ABOUT = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

describe("BIP32 test vector 1", () => {
  const seed = hexToBytes("000102030405060708090a0b0c0d0e0f");
  const master = HDKey.fromMasterSeed(seed);
  // From https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#test-vector-1
  const published = {
    m: "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8",
    "m/0'/1": "xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ",
    "m/0'/1/2'": "xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5",
    "m/0'/1/2'/2": "xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV",
    "m/0'/1/2'/2/1000000000": "xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy",
  };

  it("derives the published extended public keys from the seed", () => {
    for (const [path, xpub] of Object.entries(published)) {
      expect(master.derive(path).publicExtendedKey, path).toBe(xpub);
    }
  });

  it("parses the published m/0'/1 xpub to the node derived from the seed", () => {
    const derived = master.derive("m/0'/1");
    const parsed = parsePublic(published["m/0'/1"]);
    expect(parsed.depth).toBe(2);
    expect(parsed.index).toBe(1);
    expect(parsed.parentFingerprint).toBe(derived.parentFingerprint);
    expect(parsed.publicKey).toEqual(derived.publicKey);
    expect(parsed.chainCode).toEqual(derived.chainCode);
    expect(parsed.privateKey).toBeNull();
    expect(parsed.publicExtendedKey).toBe(published["m/0'/1"]);
  });

  it("derives public children of a parsed key like the published ones", () => {
    const account = parsePublic(published["m/0'/1/2'"]);
    const child = account.deriveChild(2);
    expect(child.publicExtendedKey).toBe(published["m/0'/1/2'/2"]);
    expect(child.deriveChild(1000000000).publicExtendedKey).toBe(published["m/0'/1/2'/2/1000000000"]);
  });

  it("accepts only the account-level (depth 3, hardened) key of the vector as a wallet key", () => {
    // Depth and child number as the key records them: what a wallet's key origin ([fp/…/2']) is checked against.
    expect(rails.checkExtendedPublicKey(BTC, true, published["m/0'/1/2'"])).toEqual({ ok: true, depth: 3, childIndex: 0x80000002 });
    const tooShallow = rails.checkExtendedPublicKey(BTC, true, published["m/0'/1"]);
    expect(tooShallow.ok).toBe(false);
    if (!tooShallow.ok) expect(tooShallow.reason).toMatch(/account-level key \(depth 3.*got a key at depth 2/);
    const tooDeep = rails.checkExtendedPublicKey(BTC, true, published["m/0'/1/2'/2"]);
    expect(tooDeep.ok).toBe(false);
    if (!tooDeep.ok) expect(tooDeep.reason).toMatch(/depth 4/);
    const root = rails.checkExtendedPublicKey(BTC, true, published.m);
    expect(root.ok).toBe(false);
    if (!root.ok) expect(root.reason).toMatch(/depth 0 \(a master key\)/);
  });
});

describe("BIP32 test vector 2", () => {
  const seed = hexToBytes(
    "fffcf9f6f3f0edeae7e4e1dedbd8d5d2cfccc9c6c3c0bdbab7b4b1aeaba8a5a29f9c999693908d8a8784817e7b7875726f6c696663605d5a5754514e4b484542",
  );
  const master = HDKey.fromMasterSeed(seed);
  // From https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#test-vector-2
  const published: Record<string, { xpub: string; xprv: string }> = {
    m: {
      xpub: "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB",
      xprv: "xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3LqFtT2emdEXVYsCzC2U",
    },
    "m/0": {
      xpub: "xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH",
      xprv: "xprv9vHkqa6EV4sPZHYqZznhT2NPtPCjKuDKGY38FBWLvgaDx45zo9WQRUT3dKYnjwih2yJD9mkrocEZXo1ex8G81dwSM1fwqWpWkeS3v86pgKt",
    },
    "m/0/2147483647'": {
      xpub: "xpub6ASAVgeehLbnwdqV6UKMHVzgqAG8Gr6riv3Fxxpj8ksbH9ebxaEyBLZ85ySDhKiLDBrQSARLq1uNRts8RuJiHjaDMBU4Zn9h8LZNnBC5y4a",
      xprv: "xprv9wSp6B7kry3Vj9m1zSnLvN3xH8RdsPP1Mh7fAaR7aRLcQMKTR2vidYEeEg2mUCTAwCd6vnxVrcjfy2kRgVsFawNzmjuHc2YmYRmagcEPdU9",
    },
    "m/0/2147483647'/1": {
      xpub: "xpub6DF8uhdarytz3FWdA8TvFSvvAh8dP3283MY7p2V4SeE2wyWmG5mg5EwVvmdMVCQcoNJxGoWaU9DCWh89LojfZ537wTfunKau47EL2dhHKon",
      xprv: "xprv9zFnWC6h2cLgpmSA46vutJzBcfJ8yaJGg8cX1e5StJh45BBciYTRXSd25UEPVuesF9yog62tGAQtHjXajPPdbRCHuWS6T8XA2ECKADdw4Ef",
    },
    "m/0/2147483647'/1/2147483646'": {
      xpub: "xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL",
      xprv: "xprvA1RpRA33e1JQ7ifknakTFpgNXPmW2YvmhqLQYMmrj4xJXXWYpDPS3xz7iAxn8L39njGVyuoseXzU6rcxFLJ8HFsTjSyQbLYnMpCqE2VbFWc",
    },
    "m/0/2147483647'/1/2147483646'/2": {
      xpub: "xpub6FnCn6nSzZAw5Tw7cgR9bi15UV96gLZhjDstkXXxvCLsUXBGXPdSnLFbdpq8p9HmGsApME5hQTZ3emM2rnY5agb9rXpVGyy3bdW6EEgAtqt",
      xprv: "xprvA2nrNbFZABcdryreWet9Ea4LvTJcGsqrMzxHx98MMrotbir7yrKCEXw7nadnHM8Dq38EGfSh6dqA9QWTyefMLEcBYJUuekgW4BYPJcr9E7j",
    },
  };
  const at = (path: string) => {
    const keys = published[path];
    if (!keys) throw new Error(path);
    return keys;
  };

  it("derives the published extended public and private keys from the seed", () => {
    expect(Object.keys(published)).toHaveLength(6);
    for (const [path, { xpub, xprv }] of Object.entries(published)) {
      const node = master.derive(path);
      expect(node.publicExtendedKey, path).toBe(xpub);
      expect(node.privateExtendedKey, path).toBe(xprv);
    }
  });

  it("parses each published xpub back to the node derived from the seed", () => {
    for (const [path, { xpub }] of Object.entries(published)) {
      const derived = master.derive(path);
      const parsed = parsePublic(xpub);
      expect(parsed.depth, path).toBe(derived.depth);
      expect(parsed.index, path).toBe(derived.index);
      expect(parsed.parentFingerprint, path).toBe(derived.parentFingerprint);
      expect(parsed.publicKey, path).toEqual(derived.publicKey);
      expect(parsed.chainCode, path).toEqual(derived.chainCode);
      expect(parsed.privateKey, path).toBeNull();
    }
    // The hardened index at the top of the range survives the round trip.
    expect(parsePublic(at("m/0/2147483647'").xpub).index).toBe(0x80000000 + 2147483647);
  });

  it("derives the non-hardened children of parsed xpubs like the published ones", () => {
    expect(parsePublic(at("m").xpub).deriveChild(0).publicExtendedKey).toBe(at("m/0").xpub);
    expect(parsePublic(at("m/0/2147483647'").xpub).deriveChild(1).publicExtendedKey).toBe(at("m/0/2147483647'/1").xpub);
    expect(parsePublic(at("m/0/2147483647'/1/2147483646'").xpub).deriveChild(2).publicExtendedKey).toBe(at("m/0/2147483647'/1/2147483646'/2").xpub);
    // A public parent cannot reach a hardened child.
    expect(() => parsePublic(at("m/0").xpub).derive("m/2147483647'")).toThrow();
  });

  it("refuses the vector's keys as wallet keys: private, non-hardened account, wrong depth", () => {
    const privateKey = rails.checkExtendedPublicKey(BTC, true, at("m/0/2147483647'/1").xprv);
    expect(privateKey.ok).toBe(false);
    if (!privateKey.ok) expect(privateKey.reason).toMatch(/this is a private key \(xprv\)/);
    // Depth 3, but at index 1: not an account key.
    const notHardened = rails.checkExtendedPublicKey(BTC, true, at("m/0/2147483647'/1").xpub);
    expect(notHardened.ok).toBe(false);
    if (!notHardened.ok) expect(notHardened.reason).toMatch(/non-hardened index 1\b/);
    const depth4 = rails.checkExtendedPublicKey(BTC, true, at("m/0/2147483647'/1/2147483646'").xpub);
    expect(depth4.ok).toBe(false);
    if (!depth4.ok) expect(depth4.reason).toMatch(/depth 4/);
    expect(() => rails.deriveAddress(BTC, true, at("m/0/2147483647'/1").xpub, 0)).toThrow(/non-hardened index 1\b/);
  });
});

describe("BIP84 (native SegWit) vector", () => {
  // https://github.com/bitcoin/bips/blob/master/bip-0084.mediawiki#test-vectors
  const ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";

  it("the account zpub is the one of the 'abandon … about' mnemonic at m/84'/0'/0'", () => {
    const master = HDKey.fromMasterSeed(bip39Seed(ABANDON_ABOUT), versionsOf("zpub"));
    expect(master.derive("m/84'/0'/0'").publicExtendedKey).toBe(ZPUB);
  });

  it("derives the published receive addresses", () => {
    expect(rails.checkExtendedPublicKey(BTC, true, ZPUB)).toEqual(ACCOUNT_ZERO);
    expect(rails.deriveAddress(BTC, true, ZPUB, 0)).toBe("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
    expect(rails.deriveAddress(BTC, true, ZPUB, 1)).toBe("bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g");
  });

  it("gives the same addresses for the same account serialised as an xpub", () => {
    const node = parsePublic(ZPUB);
    const asXpub = reserialize(node, "xpub");
    expect(asXpub.startsWith("xpub")).toBe(true);
    expect(rails.deriveAddress(BTC, true, asXpub, 0)).toBe("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
  });

  it("derives with a fresh rails instance and without the key cache alike", () => {
    const uncached = new HdWalletRails({ keyCacheSize: 0 });
    expect(uncached.deriveAddress(BTC, true, ZPUB, 1)).toBe("bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g");
    expect(uncached.deriveAddress(BTC, true, ZPUB, 1)).toBe("bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g");
  });

  it("refuses indexes public derivation cannot reach", () => {
    expect(() => rails.deriveAddress(BTC, true, ZPUB, -1)).toThrow(/index/);
    expect(() => rails.deriveAddress(BTC, true, ZPUB, 2 ** 31)).toThrow(/index/);
    expect(() => rails.deriveAddress(BTC, true, ZPUB, 1.5)).toThrow(/index/);
    expect(rails.deriveAddress(BTC, true, ZPUB, 2 ** 31 - 1)).toMatch(/^bc1q/);
  });
});

describe("Litecoin BIP84 vector", () => {
  // m/84'/2'/0' of the 'abandon … about' mnemonic, as published in the acinq-derived litecoin
  // library's BIP84Spec (xpub serialisation) with its first two receive addresses.
  const XPUB = "xpub6CjGURuDpczf6uNrCCwfhVizn5J3hsWcvZ2m6GAdmAjZnoWJPrx6TFPjGSftc2o5fvox6ubQjSXmjjaHZjwYMH7SGFpHHb9Jg24zBf66mbE";
  const FIRST = "ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh";
  const SECOND = "ltc1qwlezpr3890hcp6vva9twqh27mr6edadreqvhnn";

  it("matches the mnemonic", () => {
    expect(HDKey.fromMasterSeed(bip39Seed(ABANDON_ABOUT)).derive("m/84'/2'/0'").publicExtendedKey).toBe(XPUB);
  });

  it("derives the same ltc1 addresses from the xpub, zpub and Ltub forms of the account", () => {
    const node = parsePublic(XPUB);
    for (const prefix of ["xpub", "zpub", "Ltub"] as const) {
      const key = reserialize(node, prefix);
      expect(key.startsWith(prefix)).toBe(true);
      expect(rails.checkExtendedPublicKey(LTC, true, key)).toEqual(ACCOUNT_ZERO);
      expect(rails.deriveAddress(LTC, true, key, 0)).toBe(FIRST);
      expect(rails.deriveAddress(LTC, true, key, 1)).toBe(SECOND);
    }
  });

  it("uses tltc1 addresses for test-network keys", () => {
    const node = parsePublic(XPUB);
    for (const prefix of ["ttub", "vpub", "tpub"] as const) {
      const key = reserialize(node, prefix);
      expect(rails.checkExtendedPublicKey(LTC, false, key)).toEqual(ACCOUNT_ZERO);
      const address = rails.deriveAddress(LTC, false, key, 0);
      expect(address).toMatch(/^tltc1q/);
      expect(rails.isValidAddress(LTC, false, address)).toBe(true);
      expect(rails.isValidAddress(LTC, true, address)).toBe(false);
    }
  });
});

describe("Ethereum derivation (BIP44 coin 60)", () => {
  // Account key of m/44'/60'/0' for the 'abandon … about' mnemonic and its first address, the
  // widely published 0x9858EfFD232B4033E47d90003D41EC34EcaEda94 (ethers, Hardhat, Trezor docs).
  const XPUB = "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt";
  const FIRST = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";

  it("the account xpub is the mnemonic's m/44'/60'/0'", () => {
    expect(HDKey.fromMasterSeed(bip39Seed(ABANDON_ABOUT)).derive("m/44'/60'/0'").publicExtendedKey).toBe(XPUB);
  });

  it("derives the EIP-55 address at /0/0 for every EVM currency", () => {
    for (const currency of [ETH, BNB, USDT]) {
      expect(rails.checkExtendedPublicKey(currency, true, XPUB)).toEqual(ACCOUNT_ZERO);
      expect(rails.deriveAddress(currency, true, XPUB, 0)).toBe(FIRST);
      // Test mode accepts the xpub too (wallets export xpub for testnets).
      expect(rails.deriveAddress(currency, false, XPUB, 0)).toBe(FIRST);
    }
  });

  it("matches the address derived from the private key path", () => {
    const master = HDKey.fromMasterSeed(bip39Seed(ABANDON_ABOUT));
    const fromPrivate = master.derive("m/44'/60'/0'/0/7");
    const fromPublic = parsePublic(XPUB).deriveChild(0).deriveChild(7);
    expect(fromPublic.publicKey).toEqual(fromPrivate.publicKey);
    expect(rails.deriveAddress(ETH, true, XPUB, 7)).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(rails.deriveAddress(ETH, true, XPUB, 7)).not.toBe(FIRST);
  });
});

describe("SLIP-132 version table", () => {
  it("each format serialises with its own prefix", () => {
    const node = HDKey.fromMasterSeed(new Uint8Array(32).fill(7));
    for (const format of KEY_FORMATS) {
      const key = new HDKey({
        versions: format.versions,
        chainCode: node.chainCode!,
        privateKey: node.privateKey!,
      });
      expect(key.publicExtendedKey.slice(0, 4), format.prefix).toBe(format.prefix);
      expect(key.privateExtendedKey.slice(0, 4), format.privatePrefix).toBe(format.privatePrefix);
    }
  });
});

describe("createTestWallet", () => {
  it("returns a fresh test-mode account key that the rails accept and derive from", () => {
    const expectations: Array<[CryptoCurrency, string, RegExp]> = [
      [BTC, "vpub", /^tb1q[02-9ac-hj-np-z]{38}$/],
      [LTC, "vpub", /^tltc1q[02-9ac-hj-np-z]{38}$/],
      [ETH, "tpub", /^0x[0-9a-fA-F]{40}$/],
      [BNB, "tpub", /^0x[0-9a-fA-F]{40}$/],
      [USDT, "tpub", /^0x[0-9a-fA-F]{40}$/],
    ];
    for (const [currency, prefix, addressShape] of expectations) {
      const key = rails.createTestWallet(currency);
      expect(key.startsWith(prefix), currency.slug).toBe(true);
      expect(rails.checkExtendedPublicKey(currency, false, key)).toEqual(ACCOUNT_ZERO);
      const parsed = parsePublic(key);
      expect(parsed.depth).toBe(3);
      expect(parsed.privateKey).toBeNull();
      const address = rails.deriveAddress(currency, false, key, 0);
      expect(address).toMatch(addressShape);
      expect(rails.isValidAddress(currency, false, address)).toBe(true);
      // A test wallet is never good for live mode (except that EVM addresses look the same).
      expect(rails.checkExtendedPublicKey(currency, true, key).ok).toBe(false);
      expect(rails.createTestWallet(currency)).not.toBe(key);
    }
  });
});

describe("the receive-address derivation", () => {
  it("gives, at every index, the address of HDKey.deriveChild's public key (BTC, LTC, ETH)", () => {
    const networks = buildNetworkTable({});
    for (const currency of [BTC, LTC, ETH]) {
      const key = rails.createTestWallet(currency);
      const chain = parsePublic(key).deriveChild(0);
      const network = networks[currency.slug].test;
      for (const index of [...Array.from({ length: 40 }, (_, i) => i), 1000, 123_456, 0x7fffffff]) {
        const child = chain.deriveChild(index);
        const expected =
          network.family === "utxo"
            ? p2wpkhAddress(network.bech32Hrp, child.pubKeyHash ?? new Uint8Array())
            : evmAddressOf(child.publicKey ?? new Uint8Array());
        expect(deriveReceiveAddress(network, chain, index)).toBe(expected);
        expect(rails.deriveAddress(currency, false, key, index)).toBe(expected);
      }
    }
  });
});
