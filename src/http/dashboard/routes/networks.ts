// The merchant's networks: its default network per coin (GET/PUT /default-networks, ?mode=), and the
// funds held on its handed-out addresses (GET /funds-held and /funds-held.csv, ?mode=&network=&limit=).
// The gateway authorizes and rules; these only name fields.
import type { Request, Router } from "express";
import { errors } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import type { DefaultNetworkChoice } from "../../../core/merchants/default-networks.ts";
import { fundsHeldCsv, type FundsHeldQuery, type HeldFunds } from "../../../core/transactions/funds-held.ts";
import { accessOf, bodyOf, modeOf, sendData } from "../session.ts";

export function networkRoutes(router: Router, gateway: PaymentGateway): void {
  router.get("/default-networks", async (req, res) => {
    sendData(res, (await gateway.merchants.defaultNetworkChoices(accessOf(gateway, res), modeOf(req))).map(choiceBody));
  });

  router.put("/default-networks/:currency", async (req, res) => {
    const network = bodyOf(req).network;
    if (typeof network !== "string") throw errors.invalidMerchantSettings("network is required: give it as a string");
    const choices = await gateway.merchants.setDefaultNetwork(accessOf(gateway, res), {
      currency: String(req.params.currency),
      network,
      mode: modeOf(req),
    });
    sendData(res, choices.map(choiceBody));
  });

  router.get("/funds-held", async (req, res) => {
    sendData(res, (await gateway.merchants.fundsHeld(accessOf(gateway, res), fundsQueryOf(req))).map(heldBody));
  });

  router.get("/funds-held.csv", async (req, res) => {
    const query = fundsQueryOf(req);
    const rows = await gateway.merchants.fundsHeld(accessOf(gateway, res), query);
    res.status(200);
    res.setHeader("Content-Type", "text/csv; charset=utf-8");
    const mode = query.isLive ? "live" : "test";
    res.setHeader("Content-Disposition", `attachment; filename="funds-held-${mode}-${new Date().toISOString().slice(0, 10)}.csv"`);
    res.send(fundsHeldCsv(rows));
  });
}

/** ?mode=, ?network= (absent or empty: all), ?limit= (a whole number). */
function fundsQueryOf(req: Request): FundsHeldQuery {
  const network = req.query.network;
  const limit = req.query.limit;
  if (network !== undefined && typeof network !== "string") throw errors.invalidListParameters([{ field: "network", message: "must be given once" }]);
  if (limit !== undefined && (typeof limit !== "string" || !/^\d{1,6}$/.test(limit))) {
    throw errors.invalidListParameters([{ field: "limit", message: "must be a whole number" }]);
  }
  return { isLive: modeOf(req) === "live", network, limit: limit === undefined ? undefined : Number(limit) };
}

const choiceBody = (choice: DefaultNetworkChoice) => ({
  currency: choice.currency,
  network: choice.network,
  chosen: choice.chosen,
  networks: choice.networks.map((n) => ({ network: n.network, network_name: n.name, standard: n.standard, has_wallet: n.hasWallet })),
});

const heldBody = (row: HeldFunds) => ({
  transaction_id: row.transactionId,
  address: row.address,
  currency: row.coin,
  network: row.network,
  network_name: row.networkName,
  standard: row.standard,
  held: row.held?.toFixed() ?? null,
  fee_coin: row.feeCoin,
  fee_coin_held: row.feeCoinHeld?.toFixed() ?? null,
  needs_fee_coin: row.needsFeeCoin,
  explorer_url: row.explorerUrl,
  initiated_at: row.initiatedAt?.toISOString() ?? null,
  error: row.error,
});
