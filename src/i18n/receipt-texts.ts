// The customer-facing wording the checkout's paid page and the e-mails share (issue 44), in the
// checkout's six languages: the checkout's locale files (web/checkout/locales/) take these keys from here
// and the e-mail templates (src/email/templates.ts) read them, so a translation is written once.
import type { CheckoutLocale } from "../core/transactions/locales.ts";

export interface ReceiptTexts {
  paidTitle: string;
  paidBody: (merchant: string, paid: string, fiat: string) => string;
  underpaidTitle: string;
  receipt: string;
  reference: string;
  date: string;
  amountPaid: string;
  coin: string;
  network: string;
  transaction: string;
}

export const RECEIPT_TEXTS: Record<CheckoutLocale, ReceiptTexts> = {
  en: {
    paidTitle: "Thank you: payment received",
    paidBody: (merchant, paid, fiat) => `${merchant} has received your payment of ${paid} (${fiat}).`,
    underpaidTitle: "Part of the payment has arrived",
    receipt: "Receipt",
    reference: "Reference",
    date: "Date",
    amountPaid: "Amount paid",
    coin: "Coin",
    network: "Network",
    transaction: "Transaction",
  },
  fr: {
    paidTitle: "Merci\u00a0: paiement reçu",
    paidBody: (merchant, paid, fiat) => `${merchant} a reçu votre paiement de ${paid} (${fiat}).`,
    underpaidTitle: "Une partie du paiement est arrivée",
    receipt: "Reçu",
    reference: "Référence",
    date: "Date",
    amountPaid: "Montant payé",
    coin: "Cryptomonnaie",
    network: "Réseau",
    transaction: "Transaction",
  },
  es: {
    paidTitle: "Gracias: pago recibido",
    paidBody: (merchant, paid, fiat) => `${merchant} ha recibido su pago de ${paid} (${fiat}).`,
    underpaidTitle: "Ha llegado parte del pago",
    receipt: "Recibo",
    reference: "Referencia",
    date: "Fecha",
    amountPaid: "Importe pagado",
    coin: "Criptomoneda",
    network: "Red",
    transaction: "Transacción",
  },
  pt: {
    paidTitle: "Obrigado: pagamento recebido",
    paidBody: (merchant, paid, fiat) => `${merchant} recebeu seu pagamento de ${paid} (${fiat}).`,
    underpaidTitle: "Parte do pagamento chegou",
    receipt: "Recibo",
    reference: "Referência",
    date: "Data",
    amountPaid: "Valor pago",
    coin: "Criptomoeda",
    network: "Rede",
    transaction: "Transação",
  },
  de: {
    paidTitle: "Vielen Dank: Zahlung erhalten",
    paidBody: (merchant, paid, fiat) => `${merchant} hat Ihre Zahlung von ${paid} (${fiat}) erhalten.`,
    underpaidTitle: "Ein Teil der Zahlung ist eingegangen",
    receipt: "Beleg",
    reference: "Referenz",
    date: "Datum",
    amountPaid: "Bezahlter Betrag",
    coin: "Kryptowährung",
    network: "Netzwerk",
    transaction: "Transaktion",
  },
  ar: {
    paidTitle: "شكرًا لك: تم استلام الدفعة",
    paidBody: (merchant, paid, fiat) => `استلم ${merchant} دفعتك البالغة ${paid} (${fiat}).`,
    underpaidTitle: "وصل جزء من الدفعة",
    receipt: "الإيصال",
    reference: "المرجع",
    date: "التاريخ",
    amountPaid: "المبلغ المدفوع",
    coin: "العملة",
    network: "الشبكة",
    transaction: "المعاملة",
  },
};
