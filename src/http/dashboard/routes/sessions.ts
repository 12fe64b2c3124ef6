// Signing in and out: POST /session (e-mail and password; 202 with a challenge when the user has a
// second factor), POST /session/second-factor (the challenge and a code or a security key's
// assertion: the session), POST /session/second-factor/security-key (the challenge: WebAuthn options),
// POST /sign-in-links/:token (a one-time link, with the password to set), GET /session (who is
// signed in, with the CSRF token), POST /session/reauthenticate (sudo mode: the password and code
// again; /session/reauthenticate/security-key gives a security key's options), DELETE /session (this browser), DELETE /sessions (every browser of this user).
import type { Request, Response, Router } from "express";
import { permissionsOf } from "../../../core/access/roles.ts";
import type { DashboardSession, SignedIn } from "../../../core/dashboard/sessions.ts";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { clientAddress } from "../../../edge/rate-limits.ts";
import { bodyOf, clearSessionCookie, sendData, sessionOf, sessionTokenOf, setSessionCookie } from "../session.ts";

export function sessionRoutes(router: Router, gateway: PaymentGateway): void {
  router.post("/session", async (req, res) => {
    const body = bodyOf(req);
    const missing = (["email", "password"] as const).filter((field) => typeof body[field] !== "string" || body[field] === "");
    if (missing.length > 0) {
      throw errors.invalidDashboardUser(missing.map((field) => ({ field, message: "is required" })));
    }
    const signedIn = await gateway.accounts.signIn({
      email: body.email as string,
      password: body.password as string,
      clientAddress: clientAddress(req),
    });
    if (signedIn.kind === "signed_in") return signedInAnswer(req, res, gateway, signedIn);
    // No cookie yet: the page answers the challenge with a code (POST /session/second-factor).
    sendData(
      res,
      {
        second_factor_required: true,
        challenge_token: signedIn.challengeToken,
        expires_at: signedIn.expiresAt.toISOString(),
        methods: signedIn.methods,
      },
      202,
    );
  });

  router.post("/session/second-factor", async (req, res) => {
    const body = bodyOf(req);
    const signedIn = await gateway.accounts.completeSignIn({
      challengeToken: body.challenge_token,
      code: body.code,
      recoveryCode: body.recovery_code,
      securityKey: body.security_key,
      clientAddress: clientAddress(req),
    });
    await signedInAnswer(req, res, gateway, signedIn);
  });

  router.post("/session/second-factor/security-key", async (req, res) => {
    sendData(res, { options: await gateway.accounts.signInSecurityKeyOptions(bodyOf(req).challenge_token) });
  });

  router.post("/session/reauthenticate/security-key", async (req, res) => {
    sendData(res, { options: await gateway.accounts.reauthenticationSecurityKeyOptions(sessionTokenOf(req), clientAddress(req)) });
  });

  router.post("/sign-in-links/:token", async (req, res) => {
    const signedIn = await gateway.accounts.useSignInLink(String(req.params.token), bodyOf(req).password, clientAddress(req));
    await signedInAnswer(req, res, gateway, signedIn);
  });

  router.post("/session/reauthenticate", async (req, res) => {
    const body = bodyOf(req);
    const session = await gateway.accounts.reauthenticate(sessionTokenOf(req), clientAddress(req), {
      password: body.password,
      code: body.code,
      recoveryCode: body.recovery_code,
      securityKey: body.security_key,
    });
    sendData(res, sessionBody(session));
  });

  router.get("/session", (_req, res) => {
    sendData(res, sessionBody(sessionOf(res)));
  });

  router.delete("/session", async (req, res) => {
    await gateway.accounts.signOut(sessionTokenOf(req) ?? "");
    clearSessionCookie(res, gateway.publicUrl);
    sendData(res, { signed_out: 1 });
  });

  router.delete("/sessions", async (_req, res) => {
    const count = await gateway.accounts.signOutEverywhere(sessionOf(res).actor);
    clearSessionCookie(res, gateway.publicUrl);
    sendData(res, { signed_out: count });
  });
}

/** Sets the cookie and answers as GET /session would (so the page has its CSRF token at once). */
async function signedInAnswer(req: Request, res: Response, gateway: PaymentGateway, signedIn: SignedIn): Promise<void> {
  setSessionCookie(res, gateway.publicUrl, signedIn);
  sendData(res, sessionBody(await gateway.accounts.session(signedIn.token, clientAddress(req))), 201);
}

export function sessionBody(session: DashboardSession) {
  return {
    user: { id: session.user.id, email: session.user.email, role: session.user.role },
    merchant: { id: session.merchant.id, name: session.merchant.name, kyb_status: session.merchant.kybStatus, active: session.merchant.active },
    role: session.actor.role,
    // Until a required second factor is set up, nothing is allowed but that (the page shows the Security page only).
    permissions: session.actor.mustEnrolSecondFactor ? [] : permissionsOf(session.actor),
    csrf_token: session.csrfToken,
    expires_at: session.expiresAt.toISOString(),
    second_factor: {
      enabled: session.user.hasSecondFactor,
      enrolment_required: session.actor.mustEnrolSecondFactor,
      authenticator_app: session.user.hasAuthenticatorApp,
      security_keys: session.user.securityKeyCount,
    },
    /** Sensitive changes after this need POST /session/reauthenticate first (sudo mode). */
    reauthenticate_after: session.reauthenticateAfter.toISOString(),
  };
}
