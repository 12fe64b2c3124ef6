// What the customer scans: a payment URI for the locked amount and address, as a QR image.
import { Decimal } from "../money/amounts.ts";
import { cryptoById } from "../money/currencies.ts";
import { networkOrDefault } from "../networks.ts";
import type { PaymentRails, QrRenderer } from "../ports.ts";
import type { TransactionRecord } from "../records/transactions.ts";

export interface PaymentRequest {
  uri: string;
  qrCode: string;
}

/** Null until the transaction is initiated. */
export async function paymentRequestOf(
  deps: { rails: PaymentRails; qr: QrRenderer },
  transaction: TransactionRecord,
): Promise<PaymentRequest | null> {
  const crypto = transaction.paymentCurrencyId === null ? undefined : cryptoById(transaction.paymentCurrencyId);
  if (!crypto || transaction.paymentAddress === null || transaction.paymentAmount === null) return null;
  const network = networkOrDefault(crypto.slug, transaction.paymentNetwork);
  const uri = deps.rails.paymentUri(
    crypto,
    transaction.isLive,
    transaction.paymentAddress,
    new Decimal(transaction.paymentAmount.toString()),
    network,
  );
  return { uri, qrCode: await deps.qr.dataUrl(uri) };
}
