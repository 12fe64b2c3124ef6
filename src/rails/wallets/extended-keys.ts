// Parsing and checking merchants' account-level extended public keys.
//
// Wallets serialise BIP32 keys with SLIP-132 version bytes that name the network and the script
// type (xpub/zpub/Ltub…). @scure/bip32 only parses the version it is told about, so the version is
// looked up here first and handed to it through the `versions` option. Which formats a currency
// accepts in each mode is in networks.ts. Private keys are never parsed.
import { randomBytes } from "node:crypto";
import { HDKey, HARDENED_OFFSET, type Versions } from "@scure/bip32";
import { base58, createBase58check } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import type { CurrencyNetworks, KeyPrefix } from "./networks.ts";

type Script = "bip32" | "p2sh-p2wpkh" | "p2wpkh" | "multisig-p2sh-p2wsh" | "multisig-p2wsh";

export interface KeyFormat {
  prefix: KeyPrefix;
  privatePrefix: string;
  versions: Versions;
  network: "mainnet" | "testnet";
  /** Litecoin-only formats; the others are shared by Bitcoin-style chains. */
  litecoin: boolean;
  script: Script;
}

function format(
  prefix: KeyPrefix,
  privatePrefix: string,
  pub: number,
  priv: number,
  network: "mainnet" | "testnet",
  script: Script,
  litecoin = false,
): KeyFormat {
  return { prefix, privatePrefix, versions: { public: pub, private: priv }, network, litecoin, script };
}

/** BIP32 and SLIP-132 version bytes. */
export const KEY_FORMATS: readonly KeyFormat[] = [
  format("xpub", "xprv", 0x0488b21e, 0x0488ade4, "mainnet", "bip32"),
  format("ypub", "yprv", 0x049d7cb2, 0x049d7878, "mainnet", "p2sh-p2wpkh"),
  format("zpub", "zprv", 0x04b24746, 0x04b2430c, "mainnet", "p2wpkh"),
  format("Ypub", "Yprv", 0x0295b43f, 0x0295b005, "mainnet", "multisig-p2sh-p2wsh"),
  format("Zpub", "Zprv", 0x02aa7ed3, 0x02aa7a99, "mainnet", "multisig-p2wsh"),
  format("tpub", "tprv", 0x043587cf, 0x04358394, "testnet", "bip32"),
  format("upub", "uprv", 0x044a5262, 0x044a4e28, "testnet", "p2sh-p2wpkh"),
  format("vpub", "vprv", 0x045f1cf6, 0x045f18bc, "testnet", "p2wpkh"),
  format("Upub", "Uprv", 0x024289ef, 0x024285b5, "testnet", "multisig-p2sh-p2wsh"),
  format("Vpub", "Vprv", 0x02575483, 0x02575048, "testnet", "multisig-p2wsh"),
  format("Ltub", "Ltpv", 0x019da462, 0x019d9cfe, "mainnet", "bip32", true),
  format("Mtub", "Mtpv", 0x01b26ef6, 0x01b26792, "mainnet", "p2sh-p2wpkh", true),
  format("ttub", "ttpv", 0x0436f6e1, 0x0436ef7d, "testnet", "bip32", true),
];

export function keyFormat(prefix: KeyPrefix): KeyFormat {
  const found = KEY_FORMATS.find((f) => f.prefix === prefix);
  if (!found) throw new Error(`Unknown key format ${prefix}`);
  return found;
}

const base58check = createBase58check(sha256);
/** Extended keys are 111–112 characters; anything much longer is not one (and base58 is quadratic). */
const MAX_KEY_LENGTH = 120;
const ACCOUNT_DEPTH = 3;

/** The payload of a base58check string (double SHA-256 checksum), or what is wrong: characters outside base58, or the checksum. */
export function decodeBase58check(text: string): Uint8Array | "alphabet" | "checksum" {
  try {
    base58.decode(text);
  } catch {
    return "alphabet";
  }
  try {
    return base58check.decode(text);
  } catch {
    return "checksum";
  }
}

/** What an extended key string holds, before any network or mode policy. */
export type ReadExtendedKey =
  | { kind: "invalid"; problem: string }
  | { kind: "private"; format: KeyFormat | undefined }
  | { kind: "unknown-version"; version: number }
  | { kind: "public"; format: KeyFormat; node: HDKey };

/**
 * Decodes a serialized BIP32 key of any known format into an @scure/bip32 node. Private keys are
 * recognised but never parsed. Never throws.
 */
export function readExtendedKey(text: string): ReadExtendedKey {
  const invalid = (problem: string): ReadExtendedKey => ({ kind: "invalid", problem });
  if (typeof text !== "string" || text.length === 0) return invalid("the key is empty");
  if (text.trim() !== text) return invalid("the key has leading or trailing whitespace; paste it without spaces or line breaks");
  if (text.length > MAX_KEY_LENGTH) return invalid("not an extended key (too long)");
  const payload = decodeBase58check(text);
  if (payload === "alphabet") return invalid("not an extended key (it has characters that are not base58)");
  if (payload === "checksum") return invalid("the key's checksum does not match, so it was mistyped or cut short");
  if (payload.length !== 78) return invalid(`not an extended key (${payload.length} bytes of data instead of 78)`);

  const version = new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getUint32(0, false);
  const privateFormat = KEY_FORMATS.find((f) => f.versions.private === version);
  const publicFormat = KEY_FORMATS.find((f) => f.versions.public === version);
  // Key data starting with 0x00 is a private key, whatever the version says.
  if (privateFormat || payload[45] === 0) return { kind: "private", format: privateFormat };
  if (!publicFormat) return { kind: "unknown-version", version };
  try {
    return { kind: "public", format: publicFormat, node: HDKey.fromExtendedKey(text, publicFormat.versions) };
  } catch {
    return invalid("the key does not hold a valid secp256k1 public key");
  }
}

export type AccountKeyCheck = { ok: true; node: HDKey; format: KeyFormat } | { ok: false; reason: string };

/** What checkAccountKey needs of a currency's networks (CurrencyNetworks, or TRON's rules in tron.ts). */
export interface AccountKeyRules {
  /** Names the wallet in messages ("for BTC in live mode"). */
  slug: string;
  family: CurrencyNetworks["family"] | "tron";
  live: { kind: "mainnet" | "testnet"; acceptedKeys: readonly KeyPrefix[] };
  test: { kind: "mainnet" | "testnet"; acceptedKeys: readonly KeyPrefix[] };
  testAccountPath: string;
  liveAccountPath: string;
}

/**
 * Parses `text` as the account-level extended public key of `currency` in the given mode.
 * Never throws: a refusal carries a reason meant for the operator.
 */
export function checkAccountKey(currency: AccountKeyRules, isLive: boolean, text: string): AccountKeyCheck {
  const network = isLive ? currency.live : currency.test;
  const mode = isLive ? "live" : "test";
  const expected = expectedDescription(network.acceptedKeys);
  const where = `for ${currency.slug} in ${mode} mode`;
  const fail = (reason: string): AccountKeyCheck => ({ ok: false, reason });

  const read = readExtendedKey(text);
  switch (read.kind) {
    case "invalid":
      return fail(`${read.problem}; expected ${expected} ${where}`);
    case "private":
      return fail(
        `this is a private key${read.format ? ` (${read.format.privatePrefix})` : ""}. ` +
          "Never give the server a private key: it can spend the wallet's funds. " +
          `Treat this one as exposed, and give the account's extended public key instead: ${expected} ${where}`,
      );
    case "unknown-version":
      return fail(`unrecognised extended key version 0x${read.version.toString(16).padStart(8, "0")}; expected ${expected} ${where}`);
    case "public":
      break;
  }
  const { node, format } = read;
  if (!network.acceptedKeys.includes(format.prefix)) {
    return fail(`expected ${expected} ${where}, got ${describe(format)}${hint(currency, format, network.kind)}`);
  }
  if (node.depth !== ACCOUNT_DEPTH) {
    return fail(
      `expected an account-level key (depth 3, e.g. ${isLive ? currency.liveAccountPath : currency.testAccountPath}) ${where}, ` +
        `got a key at depth ${node.depth}${depthNote(node.depth)}; export the account's extended public key from the wallet`,
    );
  }
  if (node.index < HARDENED_OFFSET) {
    return fail(
      `expected an account-level key, which is derived at a hardened index (like 0'), got one at non-hardened index ${node.index}; ` +
        "export the account's extended public key from the wallet",
    );
  }
  return { ok: true, node, format };
}

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

/** "a mainnet key (xpub or zpub)", or "a tpub or xpub key" when the formats span networks. */
function expectedDescription(accepted: readonly KeyPrefix[]): string {
  const kinds = new Set(accepted.map((p) => keyFormat(p).network));
  if (kinds.size === 1) {
    const [kind] = [...kinds];
    return `a ${kind} key (${list(accepted)})`;
  }
  return `a ${list(accepted)} key`;
}

const SCRIPT_NAMES: Record<Script, string> = {
  bip32: "",
  "p2sh-p2wpkh": " wrapped-SegWit (BIP49)",
  p2wpkh: " native SegWit (BIP84)",
  "multisig-p2sh-p2wsh": " wrapped-SegWit multisig",
  "multisig-p2wsh": " native SegWit multisig",
};

function describe(format: KeyFormat): string {
  return `a ${format.litecoin ? "Litecoin " : ""}${format.network}${SCRIPT_NAMES[format.script]} key (${format.prefix})`;
}

function hint(currency: AccountKeyRules, format: KeyFormat, expectedKind: "mainnet" | "testnet"): string {
  if (format.script.startsWith("multisig")) return "; multisig wallets are not supported";
  if (currency.family !== "utxo") {
    const wallets = currency.family === "tron" ? "TRON" : "EVM";
    return `; ${wallets} wallets export the account ${currency.liveAccountPath} as an ${expectedKind === "mainnet" ? "xpub" : "xpub or tpub"}`;
  }
  if (format.network !== expectedKind) {
    return expectedKind === "mainnet" ? "; test-network keys belong to test mode" : "; test mode needs a test-network key";
  }
  if (format.litecoin && currency.slug !== "LTC") return `; that is a Litecoin key, not a ${currency.slug} one`;
  if (format.script === "p2sh-p2wpkh") {
    return "; this gateway pays to native SegWit (BIP84) addresses, which a wrapped-SegWit account does not watch: export the native SegWit account";
  }
  return "";
}

function depthNote(depth: number): string {
  if (depth === 0) return " (a master key)";
  if (depth === 4) return " (a chain key below the account, like …/0)";
  if (depth === 5) return " (a single address key)";
  return "";
}

/**
 * A fresh account for test mode: the extended public key at `path` of a random seed, serialised in
 * `prefix` format. The seed and private keys are wiped and dropped.
 */
export function createAccountKey(prefix: KeyPrefix, path: string): string {
  const seed = randomBytes(32);
  const master = HDKey.fromMasterSeed(seed, versionsOf(prefix));
  const account = master.derive(path);
  const key = account.publicExtendedKey;
  account.wipePrivateData();
  master.wipePrivateData();
  seed.fill(0);
  return key;
}

/** The versions option @scure/bip32 needs to serialise keys in `prefix` format. */
export function versionsOf(prefix: KeyPrefix): Versions {
  return keyFormat(prefix).versions;
}
