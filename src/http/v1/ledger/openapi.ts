// The OpenAPI description of the ledger's routes (issue 40, goal 5; routes.ts beside it), assembled
// into the document by src/http/openapi.ts.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors } from "../../../core/errors.ts";
import { filtersOf, LedgerExportParams, LedgerListParams, LedgerTotalsParams } from "../../../core/ledger/rules.ts";
import { ANY, errorResponses, limited, pagedList, queryParam, refusalOf, SECRET_ONLY, secretKey } from "../openapi-shared.ts";
import { parseListQuery } from "../../../core/lists.ts";
import { LedgerEntryListResponse, LedgerTotalsResponse } from "./schemas.ts";
import { NETWORK_SLUGS } from "../../../core/networks.ts";

const filterQuery = {
  from: queryParam("from", "Start of the period, inclusive: a day (`2026-12-01`, midnight UTC) or an ISO 8601 date-time with its offset."),
  to: queryParam("to", "End of the period, exclusive, in the same forms; after `from`."),
  coin: queryParam("coin", "Only this coin: USDT, BTC, BNB, ETH or LTC."),
  network: queryParam("network", `Only this network: ${NETWORK_SLUGS.join(", ")}.`),
  kind: queryParam("kind", "Only this kind: receipt, refund, consolidation or flush."),
  mode: queryParam("mode", "test or live; must be the key's own mode (a test key reads test entries only)."),
};

const entriesPage = pagedList(LedgerListParams, "ledger entry");

const KEY_ROLE_READ = {
  error: errors.keyRoleForbidden("retired-role", "read"),
  when: "the key was rolled by a user whose role (as recorded on the key) may not read the merchant's payments",
};

const badPeriod = {
  error: refusalOf(() => filtersOf({ merchantId: 0, isLive: false }, parseListQuery(LedgerTotalsParams, { from: "2026-12-02", to: "2026-12-01" }))),
  when: "a period whose `to` is not after `from`, a malformed date, an unknown coin, network or kind, a network the coin is not paid on, or the other mode; `errors` names each",
};

export function registerLedgerPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "get",
    path: "/v1/ledger/entries",
    operationId: "listLedgerEntries",
    summary: "List ledger entries",
    description:
      "Not in the spec (issue 40; docs/ledger.md): the key's merchant's receipts (confirmed), refunds (succeeded), consolidations (confirmed) and what confirmed flushes moved of its mode, newest first, derived from what paygate recorded. Paged as `/v1/transactions`.",
    security: secretKey,
    request: { query: z.object({ ...entriesPage.query.shape, ...filterQuery }) },
    responses: {
      200: limited(LedgerEntryListResponse, "A page of entries."),
      ...errorResponses([...entriesPage.refusals, badPeriod, SECRET_ONLY, KEY_ROLE_READ, ...ANY]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/ledger/totals",
    operationId: "ledgerTotals",
    summary: "Ledger totals per coin and network",
    description:
      "The sums of the entries the same filters list, one line per coin and network, with what they leave on the merchant's addresses (`net`).",
    security: secretKey,
    request: { query: z.object(filterQuery) },
    responses: { 200: limited(LedgerTotalsResponse, "The totals."), ...errorResponses([badPeriod, SECRET_ONLY, KEY_ROLE_READ, ...ANY]) },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/ledger/entries.csv",
    operationId: "exportLedgerCsv",
    summary: "Export a period's ledger as CSV",
    description:
      "One header row, then one row per entry (RFC 4180, CRLF), newest first; exact decimal strings; a cell that a spreadsheet would run as a formula (starting with = + - @, tab or CR) is prefixed with a single quote (OWASP). `from` and `to` are required.",
    security: secretKey,
    request: { query: z.object(filterQuery) },
    responses: {
      200: {
        description: "The CSV file (Content-Disposition: attachment).",
        content: { "text/csv": { schema: z.string() } },
      },
      ...errorResponses([
        {
          error: refusalOf(() => filtersOf({ merchantId: 0, isLive: false }, parseListQuery(LedgerExportParams, {}), true)),
          when: "no `from` or `to`, or any refusal of the list's filters",
        },
        SECRET_ONLY,
        KEY_ROLE_READ,
        ...ANY,
      ]),
    },
  });
}
