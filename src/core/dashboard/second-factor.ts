// A second factor for dashboard sign-in: TOTP (RFC 6238: 6 digits, 30-second steps, SHA-1, as every
// authenticator app reads an otpauth:// URI) through otplib, and ten one-time recovery codes.
// - Enrolment: a new secret (sealed at rest like webhook secrets), its otpauth:// URI and QR code;
//   a code of the app confirms it, which turns the factor on and answers the recovery codes once
//   (stored as SHA-256 only).
// - Each code is accepted once: the time step of the last accepted code is stored, and a code of
//   that step or an earlier one is refused (RFC 6238 §5.2), in one statement, so two requests with
//   one code cannot both pass. A recovery code is marked used the same way.
// - Wrong codes (and wrong passwords when re-authenticating) are throttled per user: attempts are
//   counted when admitted, so a burst cannot outrun the count.
import { randomInt } from "node:crypto";
import { generateSecret, generateURI, verify } from "otplib";
import { errors, RetryLaterError } from "../errors.ts";
import type { Clock, QrRenderer } from "../ports.ts";
import { per, retryAfterSeconds, usageOf, windowOf, type RateLimit, type RateLimitCounters } from "../rate-limits.ts";
import { hashKey, type SecretBox } from "../secrets.ts";
import type { DashboardUserRow } from "../stores/dashboard.ts";
import type { SecondFactorStore } from "../stores/second-factors.ts";
import type { DashboardActor } from "../access/roles.ts";
import { auditEntry, authorOf } from "../access/audit-log.ts";
import { useSecurityKey, type SecurityKeyDeps } from "./security-keys.ts";

/** How many recovery codes an enrolment gives. */
export const RECOVERY_CODE_COUNT = 10;
/** The issuer authenticator apps show beside the account's e-mail. */
const ISSUER = "paygate";
/** One step either side of now (RFC 6238 §6 recommends at most one step of drift). */
const TOLERANCE_SECONDS = 30;
/** Recovery codes: 10 characters of this alphabet (50 bits), shown as xxxxx-xxxxx. */
const RECOVERY_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** 5 wrong codes (or re-authentication passwords) per user in each 15 minutes. */
export const DEFAULT_SECOND_FACTOR_LIMIT: RateLimit = { limit: 5, windowMs: 15 * 60_000 };

export interface SecondFactorDeps extends SecurityKeyDeps {
  secondFactors: SecondFactorStore;
  secrets: SecretBox;
  qr: QrRenderer;
  clock: Clock;
  secondFactorThrottle: SecondFactorThrottle;
}

/**
 * Wrong proofs per user: each attempt is counted when admitted and each success counted apart, so
 * the failures are attempts minus successes; over the limit, attempts are refused (429) before any
 * check, until the window ends.
 */
export class SecondFactorThrottle {
  constructor(
    private readonly counters: RateLimitCounters,
    private readonly limit: RateLimit | null,
    private readonly clock: Clock,
  ) {}

  async admit(userId: string): Promise<void> {
    const rule = this.limit;
    if (!rule) return;
    const now = this.clock.now().getTime();
    const attempts = windowOf(`2fa:try:${userId}`, rule, now);
    const counted = await this.counters.count(attempts, windowOf(`2fa:ok:${userId}`, rule, now));
    if (counted.hits - counted.read <= rule.limit) return;
    const wait = retryAfterSeconds(usageOf(rule, counted.hits, attempts, now));
    throw new RetryLaterError(
      `Too many wrong codes or passwords for this account (${rule.limit} ${per(rule.windowMs)}); retry after ${wait} s`,
      "second_factor_throttled",
      wait,
    );
  }

  async succeeded(userId: string): Promise<void> {
    if (!this.limit) return;
    await this.counters.count(windowOf(`2fa:ok:${userId}`, this.limit, this.clock.now().getTime()), null);
  }
}

/** What an enrolment shows once: the secret (to type in), its otpauth:// URI and that URI's QR code. */
export interface TotpEnrolment {
  secret: string;
  otpauthUri: string;
  qrCode: string;
}

/** Starts (or starts again) setting up an authenticator app; refused when the factor is on already. */
export async function beginEnrolment(deps: SecondFactorDeps, actor: DashboardActor): Promise<TotpEnrolment> {
  const secret = generateSecret();
  if (!(await deps.secondFactors.beginTotp(actor.userId, deps.secrets.seal(secret)))) throw errors.secondFactorEnabledAlready();
  const otpauthUri = generateURI({ issuer: ISSUER, label: actor.email, secret });
  return { secret, otpauthUri, qrCode: await deps.qr.dataUrl(otpauthUri, { secret: true }) };
}

/** The app's code confirms the enrolment: the factor is on, and the recovery codes are answered this once. */
export async function confirmEnrolment(deps: SecondFactorDeps, actor: DashboardActor, code: unknown): Promise<{ recoveryCodes: string[] }> {
  const row = await deps.secondFactors.of(actor.userId);
  if (row?.totpEnabledAt) throw errors.secondFactorEnabledAlready();
  if (!row?.totpSecretEnc) throw errors.secondFactorEnrolmentMissing();
  const step = await stepOf(deps, row.totpSecretEnc, code);
  if (step === null) throw errors.secondFactorCodeInvalid();
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const now = deps.clock.now();
  const audit = auditEntry(
    authorOf(actor),
    actor.merchantId,
    now,
    "second_factor.enable",
    `authenticator app, ${RECOVERY_CODE_COUNT} recovery codes`,
  );
  const enabled = await deps.secondFactors.enableTotp(actor.userId, row.totpSecretEnc, step, recoveryCodes.map(recoveryCodeHash), now, audit);
  // Another request confirmed or restarted the enrolment meanwhile.
  if (!enabled) throw errors.secondFactorEnrolmentMissing();
  return { recoveryCodes };
}

/** A second factor's proof as a request sends it: `code` (the app's), `recovery_code`, or `security_key` (a WebAuthn assertion). */
export interface SecondFactorProof {
  code?: unknown;
  recoveryCode?: unknown;
  securityKey?: unknown;
}

/** The second factors a user can answer a challenge with. */
export type SecondFactorMethod = "totp" | "recovery_code" | "security_key";

export function secondFactorMethods(user: Pick<DashboardUserRow, "totpEnabledAt" | "securityKeyCount">): SecondFactorMethod[] {
  return [...(user.totpEnabledAt ? (["totp", "recovery_code"] as const) : []), ...(user.securityKeyCount > 0 ? (["security_key"] as const) : [])];
}

/** An authenticator app or at least one security key: sign-in and re-authentication ask for one of them. */
export const hasSecondFactor = (user: Pick<DashboardUserRow, "totpEnabledAt" | "securityKeyCount">) => secondFactorMethods(user).length > 0;

/** Refuses (400) a request that carries no proof at all: a form's mistake, not a wrong guess, so it is checked before any is counted. */
export function requireProof(proof: SecondFactorProof): void {
  if (proof.code === undefined && proof.recoveryCode === undefined && proof.securityKey === undefined) {
    throw errors.invalidDashboardUser([
      { field: "code", message: "is required: the 6-digit code of your authenticator app (or send recovery_code, or security_key)" },
    ]);
  }
}

/**
 * Checks and uses up the proof of a user whose factor is on: a security key's assertion, the app's
 * code (once per time step) or an unused recovery code. Returns how it was proved, for the audit
 * log. Throttling is the caller's (it admits the attempt first).
 */
export async function useSecondFactor(deps: SecondFactorDeps, userId: string, proof: SecondFactorProof): Promise<string> {
  requireProof(proof);
  if (proof.securityKey !== undefined) return useSecurityKey(deps, userId, proof.securityKey);
  const row = await deps.secondFactors.of(userId);
  if (!row?.totpEnabledAt || !row.totpSecretEnc) throw errors.secondFactorFailed();
  if (proof.code !== undefined) {
    const step = await stepOf(deps, row.totpSecretEnc, proof.code);
    if (step === null) throw errors.secondFactorFailed();
    if (!(await deps.secondFactors.useTotpStep(userId, step))) throw errors.secondFactorCodeReused();
    return "authenticator code";
  }
  const normal = typeof proof.recoveryCode === "string" ? proof.recoveryCode.toLowerCase().replace(/[\s-]/g, "") : "";
  if (!/^[a-z2-7]{10}$/.test(normal)) throw errors.secondFactorFailed();
  const left = await deps.secondFactors.useRecoveryCode(userId, recoveryCodeHash(normal), deps.clock.now());
  if (left === null) throw errors.secondFactorFailed();
  return `recovery code (${left} left)`;
}

/**
 * The RFC 6238 time step a code of the sealed secret belongs to, within one step of now; null when
 * it matches none or is not six digits (spaces allowed, as apps show `123 456`).
 */
async function stepOf(deps: Pick<SecondFactorDeps, "clock" | "secrets">, sealedSecret: string, code: unknown): Promise<number | null> {
  const digits = typeof code === "string" ? code.replace(/\s/g, "") : "";
  if (!/^\d{6}$/.test(digits)) return null;
  const epoch = Math.floor(deps.clock.now().getTime() / 1000);
  const result = await verify({ secret: deps.secrets.open(sealedSecret), token: digits, epoch, epochTolerance: TOLERANCE_SECONDS });
  // otplib's result type is TOTP's or HOTP's; a TOTP match carries its time step.
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

function newRecoveryCode(): string {
  const text = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join("");
  return `${text.slice(0, 5)}-${text.slice(5)}`;
}

/** Stored as the SHA-256 of the code without its dash, lower case (as it is compared). */
const recoveryCodeHash = (code: string) => hashKey(`paygate recovery\0${code.toLowerCase().replace(/[\s-]/g, "")}`);
