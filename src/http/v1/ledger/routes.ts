// REST controllers of the ledger (issue 40, goal 5; docs/ledger.md): entries, totals and the CSV of a
// period. Secret key only, its own mode only; the rules are the core's (src/core/ledger).
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Router, type Request, type Response } from "express";
import type { LedgerExport } from "../../../core/ledger/entries.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import { bearerToken, noStore } from "../../../edge/headers.ts";
import { clientAddress } from "../../../edge/rate-limits.ts";
import type { LedgerEntryListResponse, LedgerTotalsResponse } from "./schemas.ts";

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/**
 * A period's ledger as a download, for REST and the dashboard. The header and the first row are read
 * before the answer starts: a database that fails at once is a JSON error with its status, not a
 * download cut short; a failure mid-way (or the client leaving) ends the connection, so the file is
 * visibly incomplete.
 */
export async function sendLedgerCsv(res: Response, exported: LedgerExport): Promise<void> {
  const first = await exported.rows.next();
  const second = await exported.rows.next();
  const { from, to, isLive } = exported.filters;
  const day = (date: Date | null) => (date === null ? "" : date.toISOString().slice(0, 10));
  res.status(200);
  res.setHeader("Content-Type", "text/csv; charset=utf-8");
  res.setHeader("Content-Disposition", `attachment; filename="ledger-${isLive ? "live" : "test"}-${day(from)}-${day(to)}.csv"`);
  const body = Readable.from(
    (async function* () {
      if (!first.done) yield first.value;
      if (!second.done) yield second.value;
      yield* exported.rows;
    })(),
  );
  await pipeline(body, res).catch(() => {});
}

export function ledgerRoutes(gateway: PaymentGateway): Router {
  const router = Router();
  const owner = (req: Request) => gateway.access.key(bearerToken(req.headers.authorization), clientAddress(req));

  router.get("/v1/ledger/entries", noStore, async (req, res) => {
    const page = await gateway.ledger.listEntries(await owner(req), { ...req.query });
    res.locals.merchantId = page.merchantId;
    const body: LedgerEntryListResponse = { status: "success", data: page.entries, has_more: page.hasMore, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/ledger/totals", noStore, async (req, res) => {
    const got = await gateway.ledger.totals(await owner(req), { ...req.query });
    res.locals.merchantId = got.merchantId;
    const data = { is_live: got.filters.isLive, from: iso(got.filters.from), to: iso(got.filters.to), totals: got.totals };
    const body: LedgerTotalsResponse = { status: "success", data, meta: {} };
    res.status(200).json(body);
  });

  router.get("/v1/ledger/entries.csv", noStore, async (req, res) => {
    const exported = gateway.ledger.exportCsv(await owner(req), { ...req.query });
    res.locals.merchantId = exported.merchantId;
    await sendLedgerCsv(res, exported);
  });

  return router;
}
