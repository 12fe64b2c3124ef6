// The dashboard's home: GET /home?mode= answers the mode's figures of the last 30 UTC days
// (src/core/dashboard/home.ts) with snake_case names; amounts are exact decimal strings.
import type { Router } from "express";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { accessOf, isLiveOf, sendData } from "../session.ts";

export function homeRoutes(router: Router, gateway: PaymentGateway): void {
  router.get("/home", async (req, res) => {
    const home = await gateway.payments.dashboardHome(accessOf(gateway, res, isLiveOf(req)));
    sendData(res, {
      from: home.from,
      to: home.to,
      volume: home.volume,
      statuses: home.statuses,
      conversion: home.conversion,
      coins: home.coins.map((c) => ({ currency: c.currency, checkouts: c.checkouts, payments: c.payments, amount_paid: c.amountPaid })),
      failing_endpoints: home.failingEndpoints.map((f) => ({
        url: f.url,
        failed: f.failed,
        retrying: f.retrying,
        last_attempt_at: f.lastAttemptAt.toISOString(),
        last_status_code: f.lastStatusCode,
        last_error: f.lastError,
      })),
    });
  });
}
