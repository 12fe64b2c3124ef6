// A merchant's payment links as the dashboard lists them, and deactivating one: a deactivated link
// no longer starts transactions (initialize answers it as an unknown link); those it started go on.
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import type { PaymentLinkListRow } from "../stores/merchants.ts";
import { modeOf, type Mode } from "../mode.ts";

export interface PaymentLinkView {
  slug: string;
  mode: Mode;
  active: boolean;
  createdAt: Date;
  /** Transactions the link started. */
  transactionCount: number;
}

const view = (row: PaymentLinkListRow): PaymentLinkView => ({
  slug: row.slug,
  mode: modeOf(row.isLive),
  active: row.active,
  createdAt: row.createdAt,
  transactionCount: row.transactionCount,
});

export async function listPaymentLinks(deps: Pick<CoreDeps, "stores">, merchantId: number): Promise<PaymentLinkView[]> {
  const rows = await deps.stores.merchants.paymentLinks(merchantId);
  if (!rows) throw errors.merchantNotFound(merchantId);
  return rows.map(view);
}

/** Deactivates the merchant's link (again is fine); not_found for another merchant's or an unknown slug. */
export async function deactivatePaymentLink(
  deps: Pick<CoreDeps, "stores" | "credentials">,
  merchantId: number,
  slug: string,
): Promise<PaymentLinkView> {
  const row = await deps.stores.merchants.deactivatePaymentLink(merchantId, slug);
  if (!row) throw errors.paymentLinkNotFound(slug);
  // This process refuses it at once; another instance once its cache time (PAYGATE_CREDENTIAL_CACHE_MS) has passed.
  deps.credentials.forgetPaymentLink(slug);
  return view(row);
}
