// A wallet set as an output descriptor key expression, `[d34db33f/84'/0'/0']xpub…` (BIP 380): the
// bracket is the key's origin, the master key's fingerprint and the path from it to the account.
// paygate needs it only for refunds: a PSBT (BIP 174) names, for each input, the fingerprint and the
// full path of the key that signs it, and a hardware wallet or Sparrow signs nothing without them.
// Payments need none of it, so a wallet without its origin still receives. Pure parsing and rules;
// the key itself is checked by the rails (PaymentRails.checkExtendedPublicKey).
import type { ExtendedKeyCheck } from "../ports.ts";

/** The first hardened index (BIP 32). */
const HARDENED = 0x80000000;
/** Steps from a master key to an account key (purpose'/coin'/account'): the depth of the keys paygate takes. */
export const ACCOUNT_DEPTH = 3;

export interface KeyOrigin {
  /** The master key's fingerprint: 8 lower-case hex digits (the first 4 bytes of HASH160 of its public key). */
  fingerprint: string;
  /** The path from the master key to the account, each step with HARDENED added where hardened. */
  path: readonly number[];
}

/** A key as a wallet setting gives it: the extended public key alone, and its origin when the bracket was there. */
export interface KeyExpression {
  extendedPublicKey: string;
  keyOrigin: KeyOrigin | null;
}

export type KeyExpressionRead = { ok: true; value: KeyExpression } | { ok: false; reason: string };

const EXAMPLE = "[d34db33f/84'/0'/0']xpub…";
const STEP = /^(\d{1,10})(['hH]?)$/;

/**
 * Splits `text` into the key and its origin. A text without `[` is a bare key (origin null), read
 * by the rails as before. Never throws: a refusal says what is wrong, for the merchant.
 */
export function readKeyExpression(text: string): KeyExpressionRead {
  const fail = (reason: string): KeyExpressionRead => ({ ok: false, reason });
  const trimmed = text.trim();
  if (!trimmed.startsWith("[")) {
    if (trimmed.includes("]")) return fail(`the key origin must come first, in brackets, as in ${EXAMPLE}`);
    return { ok: true, value: { extendedPublicKey: trimmed, keyOrigin: null } };
  }
  const close = trimmed.indexOf("]");
  if (close < 0) return fail(`the key origin has no closing ']': write it as in ${EXAMPLE}`);
  const extendedPublicKey = trimmed.slice(close + 1).trim();
  if (!extendedPublicKey) return fail(`the key origin is not followed by the account's extended public key, as in ${EXAMPLE}`);
  if (/[/*<]/.test(extendedPublicKey)) {
    return fail("give the account key without a child path (no /0/* after it): paygate derives the receive and change addresses itself");
  }
  const [fingerprint = "", ...steps] = trimmed.slice(1, close).split("/");
  if (!/^[0-9a-fA-F]{8}$/.test(fingerprint)) {
    return fail(`the key origin's fingerprint must be 8 hexadecimal digits (your wallet's master fingerprint), got '${fingerprint}'`);
  }
  if (steps.length === 0 || (steps.length === 1 && steps[0] === "")) {
    return fail(`the key origin gives no path after the fingerprint: give the account's path, as in [${fingerprint.toLowerCase()}/84'/0'/0']`);
  }
  const path: number[] = [];
  for (const step of steps) {
    const match = STEP.exec(step);
    const index = match ? Number(match[1]) : Number.NaN;
    if (!match || !(index < HARDENED))
      return fail(`'${step}' in the key origin's path is not a derivation step (a number below 2^31, with ' or h when hardened)`);
    if (match[2] === "") return fail(`the account path must be hardened at every step (as 84'/0'/0'); step '${step}' is not`);
    path.push(index + HARDENED);
  }
  if (path.length !== ACCOUNT_DEPTH) {
    return fail(
      `the key origin's path has ${path.length} step${path.length === 1 ? "" : "s"}, but an account key is at depth ${ACCOUNT_DEPTH}: ` +
        "give the account's path, as 84'/0'/0'",
    );
  }
  return { ok: true, value: { extendedPublicKey, keyOrigin: { fingerprint: fingerprint.toLowerCase(), path } } };
}

/**
 * Whether the origin fits the key the rails read: the same depth, and the path's last step is the
 * index the key was derived at (an xpub records it). Null when it fits, else the reason.
 */
export function keyOriginProblem(origin: KeyOrigin, key: ExtendedKeyCheck): string | null {
  if (!key.ok) return null;
  if (key.depth !== undefined && key.depth !== origin.path.length) {
    return `the key origin's path has ${origin.path.length} steps but the key is at depth ${key.depth}`;
  }
  const last = origin.path[origin.path.length - 1];
  if (key.childIndex !== undefined && last !== undefined && key.childIndex !== last) {
    return `the key origin's path ends at ${stepText(last)} but the key was derived at ${stepText(key.childIndex)}: give the origin of this account`;
  }
  return null;
}

/** `d34db33f/84'/0'/0'`: how the origin is stored (wallets.key_origin) and shown. */
export function formatKeyOrigin(origin: KeyOrigin): string {
  return [origin.fingerprint, ...origin.path.map(stepText)].join("/");
}

/** The stored form read back; null for null or a value that does not parse (never written by paygate). */
export function parseStoredKeyOrigin(stored: string | null): KeyOrigin | null {
  if (stored === null) return null;
  const read = readKeyExpression(`[${stored}]x`);
  return read.ok ? read.value.keyOrigin : null;
}

/** A step as descriptors write it: `84'`, or `0` when not hardened. */
export function stepText(step: number): string {
  return step >= HARDENED ? `${step - HARDENED}'` : String(step);
}

/**
 * What a merchant whose wallet has no origin is told to add for a signable refund PSBT.
 * `accountPath`: the account's usual path (84'/0'/0' for a Bitcoin BIP 84 account).
 */
export function keyOriginMissingText(coin: string, mode: "live" | "test", keyPrefix: string, accountPath: string): string {
  return (
    `The ${coin} ${mode} wallet is set without its key origin, so a wallet cannot tell which of its keys signs this PSBT. ` +
    `Set the wallet as [fingerprint/${accountPath}]${keyPrefix}… — the fingerprint is shown by your wallet as the master ` +
    "fingerprint (Sparrow: Settings → Keystore; Electrum: Wallet → Information; a hardware wallet shows it when exporting its " +
    "xpub), the path is the account's derivation path."
  );
}
