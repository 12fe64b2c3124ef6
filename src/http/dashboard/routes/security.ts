// The Security page's API: the signed-in user's own second factor (POST /second-factor starts
// setting up an authenticator app, POST /second-factor/confirm turns it on and answers the recovery
// codes once, POST /second-factor/disable turns it off with the password and a code), its WebAuthn
// security keys (GET /security-keys, POST /security-keys/options then POST /security-keys to
// register one, DELETE /security-keys/:id), and the merchant's audit log for owners (GET
// /audit-log). The gateway checks every rule.
import type { Router } from "express";
import type { AuditLogEntryView } from "../../../core/access/audit-log.ts";
import type { SecurityKeyView } from "../../../core/dashboard/security-keys.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { accessOf, actorOf, bodyOf, sendData } from "../session.ts";

export function securityRoutes(router: Router, gateway: PaymentGateway): void {
  router.post("/second-factor", async (_req, res) => {
    const enrolment = await gateway.accounts.beginSecondFactor(actorOf(res));
    sendData(res, { secret: enrolment.secret, otpauth_uri: enrolment.otpauthUri, qr_code: enrolment.qrCode }, 201);
  });

  router.post("/second-factor/confirm", async (req, res) => {
    const confirmed = await gateway.accounts.confirmSecondFactor(actorOf(res), bodyOf(req).code);
    sendData(res, { second_factor: { enabled: true }, recovery_codes: confirmed.recoveryCodes });
  });

  router.post("/second-factor/disable", async (req, res) => {
    const body = bodyOf(req);
    await gateway.accounts.disableSecondFactor(actorOf(res), { password: body.password, code: body.code, recoveryCode: body.recovery_code });
    sendData(res, { second_factor: { enabled: false } });
  });

  router.get("/security-keys", async (_req, res) => {
    sendData(res, { security_keys: (await gateway.accounts.securityKeys(actorOf(res))).map(keyBody) });
  });

  router.post("/security-keys/options", async (_req, res) => {
    sendData(res, { options: await gateway.accounts.securityKeyRegistrationOptions(actorOf(res)) });
  });

  router.post("/security-keys", async (req, res) => {
    const body = bodyOf(req);
    const key = await gateway.accounts.registerSecurityKey(actorOf(res), { name: body.name, response: body.response });
    sendData(res, { security_key: keyBody(key) }, 201);
  });

  router.delete("/security-keys/:id", async (req, res) => {
    await gateway.accounts.removeSecurityKey(actorOf(res), String(req.params.id));
    sendData(res, { removed: true });
  });

  router.get("/audit-log", async (req, res) => {
    // `mode` is the page's, not the log's: the log holds both modes' changes.
    const { mode: _mode, ...params } = req.query;
    const page = await gateway.accounts.auditLog(accessOf(gateway, res), params);
    sendData(res, { entries: page.entries.map(entryBody), has_more: page.hasMore });
  });
}

const keyBody = (key: SecurityKeyView) => ({
  id: key.id,
  name: key.name,
  created_at: key.createdAt.toISOString(),
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
  transports: key.transports,
});

function actorBody(actor: AuditLogEntryView["actor"]) {
  if (actor.kind === "operator") return { kind: "operator", user_id: null, email: null, label: "operator (CLI)" };
  if (actor.kind === "user") return { kind: "user", user_id: actor.userId, email: actor.email, label: actor.email ?? actor.userId ?? "unknown user" };
  const rolledBy = actor.createdByUserId === null ? "made by the operator" : `rolled by ${actor.createdByEmail ?? actor.createdByUserId}`;
  return {
    kind: "api_key",
    user_id: actor.createdByUserId,
    email: actor.createdByEmail,
    api_key: { id: actor.keyId, prefix: actor.keyPrefix },
    label: `API key ${actor.keyPrefix ?? actor.keyId ?? "?"} (${rolledBy})`,
  };
}

const entryBody = (entry: AuditLogEntryView) => ({
  id: entry.id,
  created_at: entry.at.toISOString(),
  actor: actorBody(entry.actor),
  action: entry.action,
  target: entry.target,
  client_address: entry.clientAddress,
});
