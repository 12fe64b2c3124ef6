// WebAuthn security keys as a second factor beside the authenticator app, through
// @simplewebauthn/server. The relying party is the dashboard's origin (PAYGATE_PUBLIC_URL): its
// host is the RP ID and its origin the only one accepted. User verification is "preferred" (a PIN
// or touch when the key has one; presence is always required).
// - Each challenge is random (32 bytes), stored as its SHA-256 with its user and purpose, accepted
//   once and for a few minutes: using it deletes it in one statement, before the answer is checked.
// - A key is stored as its credential id, COSE public key, signature counter and transports. An
//   assertion's counter must be above the stored one (unless the key keeps none: both 0); one that
//   is not means another copy of the key signed since (a cloned key) and is refused. The counter
//   moves with a compare-and-set, so one assertion cannot be used twice.
// - Registering and removing a key are audited with the key's name only.
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { z } from "zod";
import { DuplicateKeyError, errors } from "../errors.ts";
import type { Clock } from "../ports.ts";
import { hashKey, randomToken } from "../secrets.ts";
import type { SecurityKeyRow, SecurityKeyStore, WebAuthnChallengeWrite } from "../stores/security-keys.ts";
import type { DashboardActor } from "../access/roles.ts";
import { auditEntry, authorOf } from "../access/audit-log.ts";

/**
 * The WebAuthn library (with its X.509 and ASN.1 parsers, some 0.35 s of CPU to load) is loaded at
 * the first security-key operation: a CLI command or a process that never touches a key skips it.
 */
const webauthn = () => import("@simplewebauthn/server");

/** How long a browser has to answer a challenge (WebAuthn's own timeout is given the same). */
export const WEBAUTHN_CHALLENGE_MS = 5 * 60_000;
/** Keys per account: enough for a main key, spares and a phone; a bound on what one account stores. */
export const MAX_SECURITY_KEYS = 10;
const NAME_MAX = 64;

export interface SecurityKeyDeps {
  securityKeys: SecurityKeyStore;
  clock: Clock;
  /** PAYGATE_PUBLIC_URL: the relying party (its host the RP ID, its origin the one accepted). */
  publicUrl: string;
}

/** A key as the dashboard lists it: never its public key. */
export interface SecurityKeyView {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  transports: string[];
}

const viewOf = (key: SecurityKeyRow): SecurityKeyView => ({
  id: key.id,
  name: key.name,
  createdAt: key.createdAt,
  lastUsedAt: key.lastUsedAt,
  transports: key.transports,
});

const relyingParty = (publicUrl: string) => {
  const url = new URL(publicUrl);
  return { rpID: url.hostname, origin: url.origin };
};

// Transports as the key reported them at registration (the browser's names).
const descriptorOf = (key: SecurityKeyRow) => ({ id: key.credentialId, transports: key.transports as AuthenticatorTransport[] });

export async function listSecurityKeys(deps: SecurityKeyDeps, actor: DashboardActor): Promise<SecurityKeyView[]> {
  return (await deps.securityKeys.listOf(actor.userId)).map(viewOf);
}

/** The options a browser's navigator.credentials.create() takes to register a new key (its other keys excluded). */
export async function registrationOptions(deps: SecurityKeyDeps, actor: DashboardActor): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const keys = await deps.securityKeys.listOf(actor.userId);
  if (keys.length >= MAX_SECURITY_KEYS) throw errors.securityKeyLimit(MAX_SECURITY_KEYS);
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: "paygate",
    rpID: relyingParty(deps.publicUrl).rpID,
    userName: actor.email,
    userID: new TextEncoder().encode(actor.userId),
    timeout: WEBAUTHN_CHALLENGE_MS,
    attestationType: "none",
    excludeCredentials: keys.map(descriptorOf),
    authenticatorSelection: { residentKey: "discouraged", userVerification: "preferred" },
  });
  await storeChallenge(deps, actor.userId, "registration", options.challenge);
  return options;
}

/** The options navigator.credentials.get() takes to prove one of the user's keys. */
export async function authenticationOptions(deps: SecurityKeyDeps, userId: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const keys = await deps.securityKeys.listOf(userId);
  if (keys.length === 0) throw errors.noSecurityKey();
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: relyingParty(deps.publicUrl).rpID,
    allowCredentials: keys.map(descriptorOf),
    userVerification: "preferred",
    timeout: WEBAUTHN_CHALLENGE_MS,
  });
  await storeChallenge(deps, userId, "authentication", options.challenge);
  return options;
}

async function storeChallenge(deps: SecurityKeyDeps, userId: string, purpose: WebAuthnChallengeWrite["purpose"], challenge: string): Promise<void> {
  const expiresAt = new Date(deps.clock.now().getTime() + WEBAUTHN_CHALLENGE_MS);
  await deps.securityKeys.createChallenge({ challengeHash: challengeHash(challenge), userId, purpose, expiresAt });
}

const challengeHash = (challenge: string) => hashKey(`paygate webauthn\0${challenge}`);

// The browser's answers as @simplewebauthn/browser sends them (base64url fields); the library checks the rest.
const b64url = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/)
  .max(16_384);
const REGISTRATION = z.object({
  id: b64url,
  rawId: b64url,
  type: z.literal("public-key"),
  response: z.looseObject({ clientDataJSON: b64url, attestationObject: b64url, transports: z.array(z.string().max(32)).max(8).optional() }),
  clientExtensionResults: z.looseObject({}).default({}),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
});
const AUTHENTICATION = z.object({
  id: b64url,
  rawId: b64url,
  type: z.literal("public-key"),
  response: z.looseObject({ clientDataJSON: b64url, authenticatorData: b64url, signature: b64url, userHandle: b64url.optional() }),
  clientExtensionResults: z.looseObject({}).default({}),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
});

/** The challenge a browser's answer signed (from its clientDataJSON); a 400 when the answer is not one. */
function parsed<T extends { response: { clientDataJSON: string } }>(
  schema: z.ZodType<T>,
  value: unknown,
  field: string,
): { answer: T; challenge: string } {
  const result = schema.safeParse(value);
  const clientData = result.success ? clientDataOf(result.data.response.clientDataJSON) : null;
  if (!result.success || !clientData) {
    throw errors.invalidDashboardUser([
      { field, message: "is not a WebAuthn answer: send what the browser's navigator.credentials returned (as JSON)" },
    ]);
  }
  return { answer: result.data, challenge: clientData.challenge };
}

function clientDataOf(encoded: string): { challenge: string } | null {
  try {
    const data: unknown = JSON.parse(Buffer.from(encoded, "base64url").toString("utf8"));
    return typeof data === "object" && data !== null && "challenge" in data && typeof data.challenge === "string"
      ? { challenge: data.challenge }
      : null;
  } catch {
    return null;
  }
}

/** Registers the key the browser created for the last registration options: named, audited. */
export async function registerSecurityKey(
  deps: SecurityKeyDeps,
  actor: DashboardActor,
  input: { name: unknown; response: unknown },
): Promise<SecurityKeyView> {
  const name = typeof input.name === "string" ? input.name.trim() : "";
  if (name === "" || name.length > NAME_MAX || /\p{Cc}/u.test(name)) {
    throw errors.invalidDashboardUser([
      { field: "name", message: `is required: a name for this key (1 to ${NAME_MAX} characters), to tell your keys apart` },
    ]);
  }
  const { answer, challenge } = parsed(REGISTRATION, input.response, "response");
  const now = deps.clock.now();
  if (!(await deps.securityKeys.useChallenge(challengeHash(challenge), actor.userId, "registration", now))) {
    throw errors.securityKeyRegistrationExpired();
  }
  const { rpID, origin } = relyingParty(deps.publicUrl);
  let credential: { id: string; publicKey: Uint8Array; counter: number; transports?: string[] };
  try {
    const verified = await (await webauthn()).verifyRegistrationResponse({
      response: answer as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    });
    if (!verified.verified) throw new Error("its attestation does not verify");
    credential = verified.registrationInfo.credential;
  } catch (error) {
    throw errors.securityKeyRegistrationInvalid(error instanceof Error ? error.message : "its answer does not verify");
  }
  if ((await deps.securityKeys.listOf(actor.userId)).length >= MAX_SECURITY_KEYS) throw errors.securityKeyLimit(MAX_SECURITY_KEYS);
  const key: SecurityKeyRow = {
    id: `key_${randomToken(20)}`,
    userId: actor.userId,
    name,
    credentialId: credential.id,
    publicKey: new Uint8Array(credential.publicKey),
    counter: credential.counter,
    transports: credential.transports ?? [],
    createdAt: now,
    lastUsedAt: null,
  };
  const audit = auditEntry(authorOf(actor), actor.merchantId, now, "security_key.add", `"${name}"`);
  await deps.securityKeys.add(key, audit).catch((error: unknown) => {
    throw error instanceof DuplicateKeyError ? errors.securityKeyRegisteredAlready() : error;
  });
  return viewOf(key);
}

/** Removes one of the actor's keys (the caller checked sudo mode); audited with its name. */
export async function removeSecurityKey(deps: SecurityKeyDeps, actor: DashboardActor, id: string): Promise<void> {
  const audit = (key: SecurityKeyRow) => auditEntry(authorOf(actor), actor.merchantId, deps.clock.now(), "security_key.remove", `"${key.name}"`);
  if (!(await deps.securityKeys.remove(actor.userId, id, audit))) throw errors.securityKeyNotFound();
}

/**
 * Checks and uses up an assertion of one of the user's keys: its challenge (once), its signature,
 * origin and RP ID, then its counter. Returns how it was proved, for the audit log.
 */
export async function useSecurityKey(deps: SecurityKeyDeps, userId: string, response: unknown): Promise<string> {
  const { answer, challenge } = parsed(AUTHENTICATION, response, "security_key");
  const now = deps.clock.now();
  if (!(await deps.securityKeys.useChallenge(challengeHash(challenge), userId, "authentication", now))) throw errors.securityKeyChallengeInvalid();
  const key = await deps.securityKeys.byCredentialId(answer.id);
  if (!key || key.userId !== userId) throw errors.securityKeyFailed("it is not a key of this account");
  const { rpID, origin } = relyingParty(deps.publicUrl);
  let counter: number;
  try {
    const verified = await (await webauthn()).verifyAuthenticationResponse({
      response: answer as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      // The counter is checked below, with a message of ours.
      credential: { id: key.credentialId, publicKey: key.publicKey, counter: 0, transports: key.transports },
      requireUserVerification: false,
    });
    if (!verified.verified) throw new Error("its signature does not verify");
    counter = verified.authenticationInfo.newCounter;
  } catch (error) {
    throw errors.securityKeyFailed(error instanceof Error ? error.message : "its signature does not verify");
  }
  if ((counter > 0 || key.counter > 0) && counter <= key.counter) throw errors.securityKeyCounterBackwards(key.name, counter, key.counter);
  // Another request used an assertion of this key meanwhile (its counter moved).
  if (!(await deps.securityKeys.useCounter(key.id, key.counter, counter, now))) throw errors.securityKeyChallengeInvalid();
  return `security key "${key.name}"`;
}
