// Failures of the dashboard's accounts and sessions, and of who may change what (roles, keys, second factors, security keys).
import { type FieldError, MESSAGES, PaygateError, printable } from "./base.ts";

export const dashboardErrors = {
  // ── The dashboard ─────────────────────────────────────────────────────────────────────────────
  /** The same for an unknown e-mail, a wrong password and a user without one: no account enumeration. */
  signInFailed: () => new PaygateError("unauthenticated", "E-mail or password is incorrect", "sign_in_failed"),
  sessionRequired: () =>
    new PaygateError("unauthenticated", "Sign in to the dashboard: this request has no session, or its session has ended", "session_required"),
  /** An API key on the dashboard's API: the two never mix (docs/dashboard.md). */
  apiKeyOnDashboard: () =>
    new PaygateError(
      "unauthenticated",
      "The dashboard API takes no API key: sign in at /dashboard and send the session cookie; API keys work on /v1 and /graphql",
      "api_key_not_accepted",
    ),
  signInLinkInvalid: () =>
    new PaygateError(
      "unauthenticated",
      "This sign-in link is not valid: it was used already, has expired or was never issued, or its e-mail already signs in to another merchant's dashboard. Ask an owner of your merchant for a new invitation",
      "sign_in_link_invalid",
    ),
  csrfRejected: (message: string) => new PaygateError("forbidden", message, "csrf_rejected"),
  invalidDashboardUser: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", fieldErrors.map((e) => `${e.field} ${e.message}`).join("; "), "invalid_dashboard_user", fieldErrors),
  dashboardEmailTaken: () =>
    new PaygateError(
      "validation_error",
      "email is taken: a dashboard user with this e-mail exists already (an e-mail belongs to one merchant's dashboard)",
      "email_taken",
      [{ field: "email", message: "is taken" }],
    ),
  /** Any dashboard change of a deactivated merchant (reads still work). */
  dashboardReadOnly: () =>
    new PaygateError(
      "forbidden",
      "This merchant is deactivated, so its dashboard is read-only: nothing can be changed until the operator reactivates it (paygate merchant update ID --active true)",
      "merchant_inactive",
    ),
  /** An owner's invitation of an e-mail one of its own users has (other merchants' users are never mentioned). */
  dashboardEmailTakenHere: () =>
    new PaygateError("validation_error", "email is taken: a user of this merchant has this e-mail already", "email_taken", [
      { field: "email", message: "is taken" },
    ]),
  dashboardUserNotFound: (id: string) =>
    new PaygateError("not_found", `No dashboard user with id '${printable(id)}' at this merchant`, "dashboard_user_not_found"),
  lastOwner: () =>
    new PaygateError(
      "invalid_state",
      "A merchant needs at least one owner: make another user owner first, then change or remove this one",
      "last_owner",
    ),
  // ── The dashboard: second factors and re-authentication (src/core/dashboard/second-factor.ts, reauthentication.ts) ──
  /** A wrong authenticator code or recovery code: the same for both, so a guess learns nothing of which is wrong. */
  secondFactorFailed: () =>
    new PaygateError(
      "unauthenticated",
      "The authentication code is incorrect: enter the 6-digit code your authenticator app shows now, or one of your recovery codes",
      "second_factor_failed",
    ),
  /** A right code of a time step already used (RFC 6238 §5.2: each code is accepted once). */
  secondFactorCodeReused: () =>
    new PaygateError(
      "unauthenticated",
      "This authentication code was used already: wait for your authenticator app to show the next code, and enter that one",
      "second_factor_code_reused",
    ),
  signInChallengeInvalid: () =>
    new PaygateError(
      "unauthenticated",
      "This sign-in has expired or was completed already: sign in again with your e-mail and password",
      "sign_in_challenge_invalid",
    ),
  secondFactorEnrolmentRequired: () =>
    new PaygateError(
      "forbidden",
      "This service requires a second factor for owners and developers: set up an authenticator app or a security key on the Security page (/dashboard/security) first; until then nothing else is allowed",
      "second_factor_enrolment_required",
    ),
  secondFactorEnabledAlready: () =>
    new PaygateError(
      "invalid_state",
      "Your second factor is on already: turn it off first (with your password and a code) to set up another authenticator app",
      "second_factor_enabled",
    ),
  /** A test payment recorded on a transaction that has no coin or address yet (the spec's "not initiated" says the opposite). */
  testPaymentBeforeInitiate: () =>
    new PaygateError(
      "invalid_state",
      "This transaction has no coin or payment address yet: initiate it first (POST /v1/transaction/:id/pay with a currency_id), then record its test payment",
      "transaction_not_initiated",
    ),
  // ── Who may change what with an API key (issue 41: src/core/merchants/key-access.ts) ──
  /** A test-mode key asked to change a setting live mode uses: a test key is handed to a test environment. */
  testKeyForLiveSetting: (setting: string) =>
    new PaygateError(
      "forbidden",
      `A test-mode key cannot change the merchant's ${setting}, which live payments use: use the live secret key (sec_live_…) or the dashboard`,
      "test_key_live_setting",
    ),
  /** The key was rolled by a dashboard user whose role lacks the permission: a key does what its role may, whatever the door. */
  keyRoleForbidden: (role: string, permission: string) =>
    new PaygateError(
      "forbidden",
      `This key was rolled by a ${role}, and that role cannot ${permission.replaceAll("_", " ")}: use a key rolled by an owner, or ask an owner of this merchant`,
      "key_role_forbidden",
    ),
  secondFactorNotEnabled: () => new PaygateError("invalid_state", "This account has no second factor to turn off", "second_factor_not_enabled"),
  dashboardEmailNotFound: (email: string) =>
    new PaygateError("not_found", `No dashboard user has the e-mail '${printable(email)}'`, "dashboard_user_not_found"),
  secondFactorEnrolmentMissing: () =>
    new PaygateError(
      "invalid_state",
      "No authenticator app is being set up: start again with POST /dashboard/api/second-factor (Security page, Set up)",
      "second_factor_enrolment_missing",
    ),
  /** The code that confirms an enrolment is wrong: nothing turned on, the enrolment stays open. */
  secondFactorCodeInvalid: () =>
    new PaygateError(
      "validation_error",
      "code is not the one your authenticator app shows for this secret: check that the app added the account, then enter its current 6-digit code",
      "second_factor_code_invalid",
      [{ field: "code", message: "is not the current code of this secret" }],
    ),
  reauthenticationRequired: (minutes: number) =>
    new PaygateError(
      "forbidden",
      `This change needs your password again (and your authentication code, if you have a second factor): you last confirmed it more than ${minutes} minutes ago. Confirm it (POST /dashboard/api/session/reauthenticate), then retry; nothing was changed`,
      "reauthentication_required",
    ),
  /** A wrong password when re-authenticating (the session stays; only the proof failed). */
  reauthenticationFailed: () => new PaygateError("unauthenticated", "The password is incorrect", "reauthentication_failed"),
  // ── WebAuthn security keys (src/core/dashboard/security-keys.ts) ──
  /** An assertion whose signature, origin or site does not verify against the key (or names no key of this account). */
  securityKeyFailed: (why: string) =>
    new PaygateError(
      "unauthenticated",
      `The security key's answer was refused: ${why}. Try again, or use another second factor`,
      "security_key_failed",
    ),
  /** The assertion's challenge is unknown, used already or expired: each is accepted once, for a few minutes. */
  securityKeyChallengeInvalid: () =>
    new PaygateError(
      "unauthenticated",
      "This security key request has expired or was used already: ask for a new one and touch your key again",
      "security_key_challenge_invalid",
    ),
  /** The key's signature counter did not go up: the same key signed elsewhere since, as a cloned key would. */
  securityKeyCounterBackwards: (name: string, counter: number, stored: number) =>
    new PaygateError(
      "unauthenticated",
      `The security key "${printable(name)}" answered with signature counter ${counter}, not above its last one (${stored}): it may have been cloned. It was refused; sign in with another factor and remove it`,
      "security_key_counter_backwards",
    ),
  securityKeyRegistrationInvalid: (why: string) =>
    new PaygateError("validation_error", `The security key could not be registered: ${why}`, "security_key_registration_invalid"),
  securityKeyRegistrationExpired: () =>
    new PaygateError(
      "invalid_state",
      "This security key registration has expired or was completed already: start again (Security page, Add a security key)",
      "security_key_registration_expired",
    ),
  securityKeyRegisteredAlready: () =>
    new PaygateError("invalid_state", "This security key is registered already (to this or another account)", "security_key_registered_already"),
  securityKeyLimit: (max: number) =>
    new PaygateError("invalid_state", `An account can register at most ${max} security keys: remove one first`, "security_key_limit"),
  securityKeyNotFound: () => new PaygateError("not_found", "This account has no such security key", "security_key_not_found"),
  noSecurityKey: () =>
    new PaygateError("invalid_state", "This account has no security key: use your authenticator app's code instead", "security_key_none"),
  // ── Several mutations in one GraphQL request (src/graphql/mutation-limits.ts) ──
  /** A mutation that moves money or hands out a one-time secret shares its request: refused before anything runs. */
  sensitiveMutationsBatched: (fields: string) =>
    new PaygateError(
      "bad_request",
      `A mutation that moves money or hands out a one-time secret must be the only mutation in its request; this one holds ${fields}. Send each in its own request; nothing was run`,
      "sensitive_mutations_batched",
    ),
  // ── Initialize: the merchant's rules (issue 41; src/core/transactions/initialize.ts) ──
  /** A customer's credential (a public key, a payment link: both ship in browsers) sent fields only the merchant's secret key sets. */
  merchantRuleNeedsSecretKey: (fields: string[]) => {
    const one = fields.length === 1;
    const names = one ? fields[0] : `${fields.slice(0, -1).join(", ")} and ${fields.at(-1)}`;
    return new PaygateError(
      "forbidden",
      `${names} ${one ? "is the merchant's rule" : "are the merchant's rules"}, not the customer's: a public key or a payment link cannot set ${one ? "it" : "them"}; send ${one ? "it" : "them"} from your server with your secret key in Authorization: Bearer sec_… and your public key in the body's public_key (GraphQL: input.publicKey)`,
      "merchant_rule_needs_secret_key",
      fields.map((field) => ({ field, message: `${field} is the merchant's rule: send it with the secret key` })),
    );
  },
  /** The secret key sent with a public key to prove the merchant is another merchant's, or of the other mode. */
  secretKeyMismatch: (message: string) =>
    new PaygateError("validation_error", MESSAGES.initializeValidation, "secret_key_mismatch", [{ field: "public_key", message }]),
};
