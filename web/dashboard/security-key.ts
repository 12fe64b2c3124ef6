// WebAuthn security keys in the page, through @simplewebauthn/browser (bundled by Vite): the service
// hands out the options (with a single-use challenge) and checks the browser's answer; these
// helpers only ask the browser. A browser's refusal (cancelled, timed out, a key of no account
// here) becomes a message to show, like the service's errors.
import { browserSupportsWebAuthn, startAuthentication, startRegistration, WebAuthnError } from "@simplewebauthn/browser";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/browser";
import { ApiError, type DashboardApi } from "./api.ts";

export { browserSupportsWebAuthn };

/** What went wrong in the browser, as a user can act on it. */
export class SecurityKeyError extends ApiError {
  constructor(message: string) {
    super(message, "security_key_browser", 0, "security_key_browser", []);
  }
}

function browserFailure(error: unknown): SecurityKeyError {
  if (error instanceof WebAuthnError && error.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED") {
    return new SecurityKeyError("This security key is registered already: use another key");
  }
  if (error instanceof Error && (error.name === "NotAllowedError" || error.name === "AbortError")) {
    return new SecurityKeyError("The security key request was cancelled or timed out: try again and touch your key when it blinks");
  }
  return new SecurityKeyError("This browser could not use the security key: try again, or use another browser or factor");
}

/** Asks the browser to create a key for these options; a browser failure becomes a SecurityKeyError. */
export async function createKey(options: PublicKeyCredentialCreationOptionsJSON): Promise<RegistrationResponseJSON> {
  try {
    return await startRegistration({ optionsJSON: options });
  } catch (error) {
    throw browserFailure(error);
  }
}

/** Asks the service for options at `path` (with `body`), then the browser for an assertion of one of the user's keys. */
export async function assertKey(api: DashboardApi, path: string, body: unknown = {}): Promise<AuthenticationResponseJSON> {
  const { options } = await api.post<{ options: PublicKeyCredentialRequestOptionsJSON }>(path, body);
  try {
    return await startAuthentication({ optionsJSON: options });
  } catch (error) {
    throw browserFailure(error);
  }
}
