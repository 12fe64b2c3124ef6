// Dashboard users' WebAuthn security keys and their challenges. src/db/stores/security-keys.ts
// implements it.
import type { AuditWrite } from "./audit-log.ts";

/** A user's WebAuthn security key (src/core/dashboard/security-keys.ts): public material only. */
export interface SecurityKeyRow {
  id: string;
  userId: string;
  name: string;
  /** base64url, as assertions name it. */
  credentialId: string;
  /** COSE-encoded public key. */
  publicKey: Uint8Array<ArrayBuffer>;
  /** The signature counter of the last accepted assertion. */
  counter: number;
  transports: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A WebAuthn challenge as stored: its SHA-256, its user and what it is for. */
export interface WebAuthnChallengeWrite {
  challengeHash: string;
  userId: string;
  purpose: "registration" | "authentication";
  expiresAt: Date;
}

export interface SecurityKeyStore {
  /** The user's keys, oldest first. */
  listOf(userId: string): Promise<SecurityKeyRow[]>;
  byCredentialId(credentialId: string): Promise<SecurityKeyRow | null>;
  /** Stores a key with its audit entry in one database transaction; DuplicateKeyError when the credential is registered already. */
  add(key: SecurityKeyRow, audit: AuditWrite): Promise<void>;
  /** Removes the user's key with the audit entry (made from the key) in one transaction; null when the user has no such key. */
  remove(userId: string, id: string, audit: (key: SecurityKeyRow) => AuditWrite): Promise<SecurityKeyRow | null>;
  /** Removes every key of the user (the operator's reset), with the audit entry; how many. */
  removeAllOf(userId: string, audit: AuditWrite): Promise<number>;
  /** Moves the counter from `from` to `to` (one statement: of two uses of one assertion, one wins); false when it was not `from` any more. */
  useCounter(id: string, from: number, to: number, now: Date): Promise<boolean>;
  createChallenge(challenge: WebAuthnChallengeWrite): Promise<void>;
  /** Deletes the unexpired challenge of that user and purpose; false when there is none (unknown, used or expired). */
  useChallenge(challengeHash: string, userId: string, purpose: WebAuthnChallengeWrite["purpose"], now: Date): Promise<boolean>;
  /** Deletes expired challenges; how many. */
  pruneChallenges(now: Date): Promise<number>;
}
