// The ledger's façade (issue 40, goal 5; docs/ledger.md): entries, totals and the CSV of a period.
// Reading the ledger is reading payments: the `read` permission, which every dashboard role holds;
// a key whose rolled-by role lacks it is refused (403). A key reaches its own mode only.
import type { CoreDeps } from "../deps.ts";
import * as ledger from "../ledger/entries.ts";
import type { LedgerOwner } from "../ledger/rules.ts";
import type { MerchantAccess } from "./access.ts";

function readerOf(access: MerchantAccess): LedgerOwner {
  access.require("read");
  return { merchantId: access.merchantId, isLive: access.isLive };
}

export class Ledger {
  constructor(private readonly deps: CoreDeps) {}

  listEntries(access: MerchantAccess, params: Record<string, unknown>): Promise<ledger.LedgerPage> {
    return ledger.listEntries(this.deps, readerOf(access), params);
  }

  totals(access: MerchantAccess, params: Record<string, unknown>): Promise<ledger.LedgerTotals> {
    return ledger.totals(this.deps, readerOf(access), params);
  }

  /** Checked at once (a refusal throws here); the rows are read as the caller consumes them. */
  exportCsv(access: MerchantAccess, params: Record<string, unknown>): ledger.LedgerExport {
    return ledger.exportCsv(this.deps, readerOf(access), params);
  }
}
