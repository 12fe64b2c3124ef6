// Signing in and out: POST /session (e-mail and password), POST /sign-in-links/:token (a one-time
// link, with the password to set), GET /session (who is signed in, with the CSRF token),
// DELETE /session (this browser), DELETE /sessions (every browser of this user).
import type { Router } from "express";
import { permissionsOf } from "../../../core/dashboard/access.ts";
import type { DashboardSession, SignedIn } from "../../../core/dashboard/sessions.ts";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { clientAddress } from "../../rate-limits.ts";
import { bodyOf, clearSessionCookie, sendData, sessionOf, sessionTokenOf, setSessionCookie } from "../session.ts";

export function sessionRoutes(router: Router, gateway: PaymentGateway): void {
  router.post("/session", async (req, res) => {
    const body = bodyOf(req);
    const missing = (["email", "password"] as const).filter((field) => typeof body[field] !== "string" || body[field] === "");
    if (missing.length > 0) {
      throw errors.invalidDashboardUser(missing.map((field) => ({ field, message: "is required" })));
    }
    const signedIn = await gateway.signIn({ email: body.email as string, password: body.password as string, clientAddress: clientAddress(req) });
    await signedInAnswer(res, gateway, signedIn);
  });

  router.post("/sign-in-links/:token", async (req, res) => {
    const signedIn = await gateway.useSignInLink(String(req.params.token), bodyOf(req).password);
    await signedInAnswer(res, gateway, signedIn);
  });

  router.get("/session", (_req, res) => {
    sendData(res, sessionBody(sessionOf(res)));
  });

  router.delete("/session", async (req, res) => {
    await gateway.signOut(sessionTokenOf(req) ?? "");
    clearSessionCookie(res, gateway.publicUrl);
    sendData(res, { signed_out: 1 });
  });

  router.delete("/sessions", async (_req, res) => {
    const count = await gateway.signOutEverywhere(sessionOf(res).actor);
    clearSessionCookie(res, gateway.publicUrl);
    sendData(res, { signed_out: count });
  });
}

/** Sets the cookie and answers as GET /session would (so the page has its CSRF token at once). */
async function signedInAnswer(res: Parameters<typeof setSessionCookie>[0], gateway: PaymentGateway, signedIn: SignedIn): Promise<void> {
  setSessionCookie(res, gateway.publicUrl, signedIn);
  sendData(res, sessionBody(await gateway.dashboardSession(signedIn.token)), 201);
}

export function sessionBody(session: DashboardSession) {
  return {
    user: { id: session.user.id, email: session.user.email, role: session.user.role },
    merchant: { id: session.merchant.id, name: session.merchant.name, kyb_status: session.merchant.kybStatus, active: session.merchant.active },
    role: session.actor.role,
    permissions: permissionsOf(session.actor.role),
    csrf_token: session.csrfToken,
    expires_at: session.expiresAt.toISOString(),
  };
}
