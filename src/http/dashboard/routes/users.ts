// The merchant's dashboard users: GET /users (anyone signed in), POST /users (invite: answers the
// one-time sign-in link, once), PATCH /users/:id (role), DELETE /users/:id. The gateway authorizes.
import type { Router } from "express";
import type { DashboardUserView } from "../../../core/dashboard/sessions.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
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

  router.delete("/users/:id", async (req, res) => {
    sendData(res, userBody(await gateway.accounts.removeUser(actorOf(res), String(req.params.id))));
  });
}

export function userBody(user: DashboardUserView) {
  return { id: user.id, email: user.email, role: user.role, created_at: user.createdAt.toISOString(), has_password: user.hasPassword };
}
