// Dashboard users' TOTP second factors, recovery codes and sign-in challenges.
// src/db/stores/second-factors.ts implements it.
import type { AuditWrite } from "./audit-log.ts";
import type { DashboardUserRow } from "./dashboard.ts";

/** A user's TOTP state, its secret sealed (src/core/dashboard/second-factor.ts opens it). */
export interface SecondFactorRow {
  userId: string;
  totpSecretEnc: string | null;
  totpEnabledAt: Date | null;
  totpLastStep: number | null;
}

/** A sign-in whose password was right, waiting for its second factor. */
export interface ChallengeWrite {
  tokenHash: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface SecondFactorStore {
  /** The user's TOTP state; null when there is no such user. */
  of(userId: string): Promise<SecondFactorRow | null>;
  /** Starts an enrolment: the sealed secret, not yet on; false when the user's second factor is on already (nothing changed). */
  beginTotp(userId: string, sealedSecret: string): Promise<boolean>;
  /**
   * Turns the second factor on with the code's time step and the recovery codes' hashes (any earlier
   * ones replaced), if the secret is still `sealedSecret` and not on yet; with the audit entry, in one
   * database transaction. False: nothing changed.
   */
  enableTotp(userId: string, sealedSecret: string, step: number, recoveryCodeHashes: string[], now: Date, audit: AuditWrite): Promise<boolean>;
  /** Turns it off: the secret and the recovery codes go, with the audit entry, in one database transaction. False: it was off. */
  disableTotp(userId: string, audit: AuditWrite): Promise<boolean>;
  /** Records a code's time step as used if it is later than the last one used (one statement: of two uses at once, one wins). */
  useTotpStep(userId: string, step: number): Promise<boolean>;
  /** Marks an unused recovery code used; null when there is none (wrong or used), else how many unused remain. */
  useRecoveryCode(userId: string, codeHash: string, now: Date): Promise<number | null>;
  /** How many unused recovery codes the user has. */
  recoveryCodesLeft(userId: string): Promise<number>;
  createChallenge(challenge: ChallengeWrite): Promise<void>;
  /** The unexpired challenge's user; null otherwise. */
  challenge(tokenHash: string, now: Date): Promise<DashboardUserRow | null>;
  /** Deletes it; false when it was gone already (used at the same time by another request). */
  endChallenge(tokenHash: string): Promise<boolean>;
}
