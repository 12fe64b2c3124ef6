// The dashboard's settlement and ledger pages (issue 40; docs/settlement.md, docs/ledger.md): the
// forwarder setting per EVM network, its flushes and a flush on demand, and the ledger's entries,
// totals and CSV, each in the page's ?mode=. The façades check the role (`read`, or
// `manage_settlement` with a recent password for the setting) and every rule, as for REST.
import type { Request, Router } from "express";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { sendLedgerCsv } from "../../v1/ledger/routes.ts";
import { accessOf, bodyOf, isLiveOf, sendData } from "../session.ts";

/** The query without `mode` (the dashboard's, not the list's): the lists refuse parameters they do not know. */
function queryOf(req: Request): Record<string, unknown> {
  const { mode: _mode, ...query } = req.query;
  return query;
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

export function settlementRoutes(router: Router, gateway: PaymentGateway): void {
  router.get("/settlement/forwarders", async (req, res) => {
    sendData(res, { forwarders: await gateway.settlement.forwarderSettings(accessOf(gateway, res, isLiveOf(req))) });
  });

  router.post("/settlement/forwarders/:network", async (req, res) => {
    const access = accessOf(gateway, res, isLiveOf(req));
    sendData(res, await gateway.settlement.setForwarderSetting(access, String(req.params.network), bodyOf(req)));
  });

  router.delete("/settlement/forwarders/:network", async (req, res) => {
    const access = accessOf(gateway, res, isLiveOf(req));
    await gateway.settlement.removeForwarderSetting(access, String(req.params.network));
    sendData(res, { network: String(req.params.network).toLowerCase(), is_live: access.isLive, mode: "own_addresses" });
  });

  router.get("/settlement/fee-payers", async (req, res) => {
    const states = await gateway.settlement.feePayers(accessOf(gateway, res, isLiveOf(req)));
    const feePayers = states.map((s) => ({
      network: s.network,
      address: s.reading?.address ?? null,
      balance: s.reading?.balance ?? null,
      low: s.reading?.low ?? null,
      problem: s.problem,
    }));
    sendData(res, { fee_payers: feePayers });
  });

  router.get("/settlement/flushes", async (req, res) => {
    const page = await gateway.settlement.listFlushes(accessOf(gateway, res, isLiveOf(req)), queryOf(req));
    sendData(res, { flushes: page.flushes, has_more: page.hasMore });
  });

  router.post("/settlement/flushes", async (req, res) => {
    sendData(res, await gateway.settlement.flushForwarders(accessOf(gateway, res, isLiveOf(req)), bodyOf(req)), 201);
  });

  router.get("/ledger/entries", async (req, res) => {
    const page = await gateway.ledger.listEntries(accessOf(gateway, res, isLiveOf(req)), queryOf(req));
    sendData(res, { entries: page.entries, has_more: page.hasMore });
  });

  router.get("/ledger/totals", async (req, res) => {
    const got = await gateway.ledger.totals(accessOf(gateway, res, isLiveOf(req)), queryOf(req));
    sendData(res, { is_live: got.filters.isLive, from: iso(got.filters.from), to: iso(got.filters.to), totals: got.totals });
  });

  router.get("/ledger/entries.csv", async (req, res) => {
    const exported = gateway.ledger.exportCsv(accessOf(gateway, res, isLiveOf(req)), queryOf(req));
    await sendLedgerCsv(res, exported);
  });
}
