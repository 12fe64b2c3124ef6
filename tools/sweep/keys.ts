// The sweep tool's keys (docs/settlement.md, Sweeping fresh addresses): the merchant's account key and
// the fee wallet's key, read from a file or stdin only (never argv, never the environment), never
// printed. An error names what is wrong with a key, never its text.
import { pbkdf2Sync } from "node:crypto";
import { readFileSync } from "node:fs";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { HDKey } from "@scure/bip32";
import { hexToBytes } from "@noble/hashes/utils.js";
import { addressOfPrivateKey } from "../../src/rails/evm/signing.ts";
import { evmAddressOf } from "../../src/rails/wallets/addresses.ts";
import { decodeBase58check, KEY_FORMATS } from "../../src/rails/wallets/extended-keys.ts";
import { tronAddressOf } from "../../src/rails/wallets/tron.ts";

export class KeyError extends Error {
  override readonly name = "KeyError";
}

/** A file's text, or stdin's when `source` is "-". */
export function readSecret(source: string, what: string): string {
  try {
    return (source === "-" ? readFileSync(0, "utf8") : readFileSync(source, "utf8")).trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new KeyError(`${what} could not be read from ${source === "-" ? "stdin" : source} (${code})`);
  }
}

/**
 * The account-level key: a BIP-32 extended private key (xprv, tprv or a SLIP-132 variant) of the
 * account whose extended public key paygate has, or a BIP-39 mnemonic with `path` to that account
 * (m/44'/60'/0'). A mnemonic's words are not checked against the word list: a typo gives another
 * key, which the address check then refuses.
 */
export function accountKey(text: string, path: string | undefined, passphrase = ""): HDKey {
  const words = text.split(/\s+/).filter((w) => w !== "");
  if (words.length >= 12) {
    if (path === undefined)
      throw new KeyError("a mnemonic needs --path, the account's derivation path (m/44'/60'/0' for the first Ethereum account)");
    if (!/^m(\/\d+'?)+$/.test(path)) throw new KeyError(`--path must look like m/44'/60'/0' (got '${path}')`);
    const seed = pbkdf2Sync(words.join(" ").normalize("NFKD"), `mnemonic${passphrase}`.normalize("NFKD"), 2048, 64, "sha512");
    return HDKey.fromMasterSeed(seed).derive(path);
  }
  if (words.length !== 1) throw new KeyError("the account key is neither an extended private key nor a mnemonic of 12 to 24 words");
  const payload = decodeBase58check(text);
  if (typeof payload === "string" || payload.length !== 78)
    throw new KeyError("the account key is not an extended key (its base58 or checksum is wrong)");
  const version = new DataView(payload.buffer, payload.byteOffset).getUint32(0, false);
  const format = KEY_FORMATS.find((f) => f.versions.private === version);
  if (format === undefined) {
    const isPublic = KEY_FORMATS.some((f) => f.versions.public === version);
    throw new KeyError(
      isPublic ? "the account key is a public key: the sweep needs the private key of the account" : "the account key has an unknown version",
    );
  }
  try {
    return HDKey.fromExtendedKey(text, format.versions);
  } catch {
    throw new KeyError("the account key does not hold a valid private key");
  }
}

/** The public key and chain code of an account key: what its derivations depend on, whatever its serialisation. */
export function sameAccount(key: HDKey, extendedPublicKey: string): boolean {
  const payload = decodeBase58check(extendedPublicKey);
  if (typeof payload === "string" || payload.length !== 78 || key.publicKey === null || key.chainCode === null) return false;
  const chainCode = payload.subarray(13, 45);
  const publicKey = payload.subarray(45, 78);
  return Buffer.from(chainCode).equals(Buffer.from(key.chainCode)) && Buffer.from(publicKey).equals(Buffer.from(key.publicKey));
}

/** The EVM address and private key at `0/<index>` below the account. */
export function evmChild(account: HDKey, index: number): { address: string; privateKey: Uint8Array } {
  const child = childKey(account, index);
  return { address: evmAddressOf(child.publicKey), privateKey: child.privateKey };
}

/** The TRON address (base58) and private key at `0/<index>` below the account: the same key as EVM's, another address form. */
export function tronChild(account: HDKey, index: number): { address: string; privateKey: Uint8Array } {
  const child = childKey(account, index);
  return { address: tronAddressOf(child.publicKey), privateKey: child.privateKey };
}

function childKey(account: HDKey, index: number): { publicKey: Uint8Array; privateKey: Uint8Array } {
  const child = account.deriveChild(0).deriveChild(index);
  if (child.privateKey === null || child.publicKey === null) throw new KeyError("the account key has no private key");
  return { publicKey: child.publicKey, privateKey: child.privateKey };
}

/** The fee wallet: a 32-byte private key in hex (0x optional), holding the network's coin; its address in the network's form. */
export function feeWalletKey(text: string, form: "evm" | "tron" = "evm"): { address: string; privateKey: Uint8Array } {
  const hex = text.replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new KeyError("the fee wallet key must be 64 hex digits (a raw secp256k1 private key)");
  const privateKey = hexToBytes(hex.toLowerCase());
  try {
    return { address: form === "tron" ? tronAddressOf(secp256k1.getPublicKey(privateKey)) : addressOfPrivateKey(privateKey), privateKey };
  } catch {
    throw new KeyError("the fee wallet key is not a valid secp256k1 private key");
  }
}
