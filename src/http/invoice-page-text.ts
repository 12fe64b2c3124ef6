// The hosted invoice page's words in the checkout's six languages (src/core/transactions/locales.ts),
// chosen by `?lang=`, else the browser's Accept-Language, else English.
import { CHECKOUT_LOCALES, type CheckoutLocale } from "../core/transactions/locales.ts";

export interface InvoiceText {
  invoice: string;
  from: string;
  billedTo: string;
  due: string;
  description: string;
  quantity: string;
  unitPrice: string;
  amount: string;
  subtotal: string;
  total: string;
  paid: string;
  left: string;
  pay: string;
  amountToPay: string;
  state: Record<"open" | "partially_paid" | "paid" | "overdue" | "void", string>;
  testMode: string;
}

const TEXT: Record<CheckoutLocale, InvoiceText> = {
  en: {
    invoice: "Invoice",
    from: "From",
    billedTo: "Billed to",
    due: "Due",
    description: "Description",
    quantity: "Qty",
    unitPrice: "Unit price",
    amount: "Amount",
    subtotal: "Subtotal",
    total: "Total",
    paid: "Paid",
    left: "Left to pay",
    pay: "Pay",
    amountToPay: "Amount to pay",
    state: { open: "Open", partially_paid: "Partially paid", paid: "Paid", overdue: "Overdue", void: "Void" },
    testMode: "Test mode: no real money moves.",
  },
  fr: {
    invoice: "Facture",
    from: "De",
    billedTo: "Facturé à",
    due: "Échéance",
    description: "Description",
    quantity: "Qté",
    unitPrice: "Prix unitaire",
    amount: "Montant",
    subtotal: "Sous-total",
    total: "Total",
    paid: "Payé",
    left: "Reste à payer",
    pay: "Payer",
    amountToPay: "Montant à payer",
    state: { open: "Ouverte", partially_paid: "Partiellement payée", paid: "Payée", overdue: "En retard", void: "Annulée" },
    testMode: "Mode test : aucun argent réel ne circule.",
  },
  es: {
    invoice: "Factura",
    from: "De",
    billedTo: "Facturado a",
    due: "Vence",
    description: "Descripción",
    quantity: "Cant.",
    unitPrice: "Precio unitario",
    amount: "Importe",
    subtotal: "Subtotal",
    total: "Total",
    paid: "Pagado",
    left: "Pendiente de pago",
    pay: "Pagar",
    amountToPay: "Importe a pagar",
    state: { open: "Abierta", partially_paid: "Pagada en parte", paid: "Pagada", overdue: "Vencida", void: "Anulada" },
    testMode: "Modo de prueba: no se mueve dinero real.",
  },
  pt: {
    invoice: "Fatura",
    from: "De",
    billedTo: "Cobrado a",
    due: "Vencimento",
    description: "Descrição",
    quantity: "Qtd.",
    unitPrice: "Preço unitário",
    amount: "Valor",
    subtotal: "Subtotal",
    total: "Total",
    paid: "Pago",
    left: "Falta pagar",
    pay: "Pagar",
    amountToPay: "Valor a pagar",
    state: { open: "Em aberto", partially_paid: "Paga em parte", paid: "Paga", overdue: "Vencida", void: "Anulada" },
    testMode: "Modo de teste: nenhum dinheiro real é movimentado.",
  },
  de: {
    invoice: "Rechnung",
    from: "Von",
    billedTo: "Rechnung an",
    due: "Fällig",
    description: "Beschreibung",
    quantity: "Menge",
    unitPrice: "Einzelpreis",
    amount: "Betrag",
    subtotal: "Zwischensumme",
    total: "Gesamt",
    paid: "Bezahlt",
    left: "Offen",
    pay: "Bezahlen",
    amountToPay: "Zu zahlender Betrag",
    state: { open: "Offen", partially_paid: "Teilweise bezahlt", paid: "Bezahlt", overdue: "Überfällig", void: "Storniert" },
    testMode: "Testmodus: Es wird kein echtes Geld bewegt.",
  },
  ar: {
    invoice: "فاتورة",
    from: "من",
    billedTo: "إلى",
    due: "تاريخ الاستحقاق",
    description: "الوصف",
    quantity: "الكمية",
    unitPrice: "سعر الوحدة",
    amount: "المبلغ",
    subtotal: "المجموع الفرعي",
    total: "الإجمالي",
    paid: "المدفوع",
    left: "المتبقي",
    pay: "ادفع",
    amountToPay: "المبلغ المراد دفعه",
    state: { open: "مفتوحة", partially_paid: "مدفوعة جزئيًا", paid: "مدفوعة", overdue: "متأخرة", void: "ملغاة" },
    testMode: "وضع الاختبار: لا تتحرك أموال حقيقية.",
  },
};

const isLocale = (value: string): value is CheckoutLocale => (CHECKOUT_LOCALES as readonly string[]).includes(value);

/** `?lang=` first, then the invoice's own language, then the first language of Accept-Language the page has. */
export function localeOf(lang: unknown, acceptLanguage: string | undefined, invoiceLocale: CheckoutLocale | null = null): CheckoutLocale {
  if (typeof lang === "string" && isLocale(lang)) return lang;
  if (invoiceLocale !== null) return invoiceLocale;
  for (const part of (acceptLanguage ?? "").split(",")) {
    const code = part.trim().slice(0, 2).toLowerCase();
    if (isLocale(code)) return code;
  }
  return "en";
}

export const textOf = (locale: CheckoutLocale): InvoiceText => TEXT[locale];
