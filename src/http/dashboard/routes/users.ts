// The merchant's dashboard users: GET /users (anyone signed in), POST /users (invite: answers the
// one-time sign-in link, once), PATCH /users/:id (role), DELETE /users/:id; a user's own e-mail
// notices: GET /account/email-notices, PATCH /users/:id/email-notices, and their language:
// GET /account/notice-language, PATCH /users/:id/notice-language. The gateway authorizes.
import type { Router } from "express";
import type { DashboardUserView } from "../../../core/dashboard/sessions.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { CHECKOUT_LOCALES } from "../../../core/transactions/locales.ts";
import { actorOf, bodyOf, sendData } from "../session.ts";

export function userRoutes(router: Router, gateway: PaymentGateway): void {
  router.get("/users", async (_req, res) => {
    sendData(res, (await gateway.accounts.listUsers(actorOf(res))).map(userBody));
  });

  router.post("/users", async (req, res) => {
    const body = bodyOf(req);
    const created = await gateway.accounts.inviteUser(actorOf(res), { email: body.email, role: body.role });
    sendData(
      res,
      { ...userBody(created.user), sign_in_url: created.signInUrl, sign_in_url_expires_at: created.signInUrlExpiresAt?.toISOString() ?? null },
      201,
    );
  });

  router.patch("/users/:id", async (req, res) => {
    sendData(res, userBody(await gateway.accounts.changeUserRole(actorOf(res), String(req.params.id), bodyOf(req).role)));
  });

  router.get("/account/email-notices", async (_req, res) => {
    const status = gateway.email.status();
    sendData(res, { enabled: await gateway.email.notices(actorOf(res)), sending: status.enabled, not_sent_because: status.reason });
  });

  router.patch("/users/:id/email-notices", async (req, res) => {
    const id = String(req.params.id);
    sendData(res, { user_id: id, enabled: await gateway.email.setNotices(actorOf(res), id, bodyOf(req).enabled) });
  });

  router.get("/account/notice-language", async (_req, res) => {
    sendData(res, { locale: await gateway.email.noticeLocale(actorOf(res)), languages: CHECKOUT_LOCALES });
  });

  router.patch("/users/:id/notice-language", async (req, res) => {
    const id = String(req.params.id);
    sendData(res, { user_id: id, locale: await gateway.email.setNoticeLocale(actorOf(res), id, bodyOf(req).locale) });
  });

  router.delete("/users/:id", async (req, res) => {
    sendData(res, userBody(await gateway.accounts.removeUser(actorOf(res), String(req.params.id))));
  });
}

export function userBody(user: DashboardUserView) {
  return { id: user.id, email: user.email, role: user.role, created_at: user.createdAt.toISOString(), has_password: user.hasPassword };
}
