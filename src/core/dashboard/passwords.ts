// Dashboard passwords: scrypt (memory-hard, in node:crypto) with a per-password random salt. The
// parameters are stored with the hash (`scrypt$N$r$p$salt$hash`), so raising them later keeps old
// hashes checkable. Checks compare in constant time, and an unknown e-mail is checked against a
// dummy hash of the same cost, so a failed sign-in takes as long whether the user exists or not.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/** OWASP's scrypt floor is N=2^17 with r=8; 2^15 keeps a sign-in near 50 ms on a small server while staying memory-hard (32 MiB). */
const DEFAULTS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

/** Passwords shorter than this are refused (NIST SP 800-63B's minimum for a chosen password is 8; 10 is ours). */
export const MIN_PASSWORD_LENGTH = 10;
/** Longer ones are refused too: scrypt's cost grows with the input, and no one types 200 characters. */
export const MAX_PASSWORD_LENGTH = 200;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, DEFAULTS);
  return ["scrypt", DEFAULTS.N, DEFAULTS.r, DEFAULTS.p, salt.toString("base64"), key.toString("base64")].join("$");
}

/** Whether the password matches the stored hash; false for a hash of an unknown form. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (![params.N, params.r, params.p].every((v) => Number.isInteger(v) && v > 0)) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await derive(password, Buffer.from(salt, "base64"), params);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

let dummy: Promise<string> | null = null;
/** Spends a check's time on nothing: for an unknown e-mail or a user without a password. */
export async function verifyNothing(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(16).toString("hex"));
  await verifyPassword(password, await dummy);
  return false;
}
