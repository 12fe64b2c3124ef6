// An invoice's e-mails in the checkout's six languages (issue 44); the merchant's notices: notice-texts.ts.
import type { CheckoutLocale } from "../core/transactions/locales.ts";

export interface InvoiceEmailTexts {
  invoiceSubject: (merchant: string, number: string) => string;
  invoiceBody: (merchant: string, total: string) => string;
  reminderSubject: (merchant: string, number: string) => string;
  reminderBody: (days: string, dueDate: string, due: string) => string;
  dueTodayBody: (due: string) => string;
  overdueSubject: (merchant: string, number: string) => string;
  overdueBody: (dueDate: string, due: string) => string;
  viewButton: string;
  number: string;
  total: string;
  amountDue: string;
  dueDate: string;
  attached: string;
  footer: (merchant: string) => string;
}

export const INVOICE_TEXTS: Record<CheckoutLocale, InvoiceEmailTexts> = {
  en: {
    invoiceSubject: (merchant, number) => `Invoice ${number} from ${merchant}`,
    invoiceBody: (merchant, total) => `${merchant} sent you an invoice for ${total}. View and pay it online:`,
    reminderSubject: (merchant, number) => `Reminder: invoice ${number} from ${merchant}`,
    reminderBody: (days, dueDate, due) => `Your invoice is due in ${days} day(s), on ${dueDate}. ${due} is left to pay:`,
    dueTodayBody: (due) => `Your invoice is due today. ${due} is left to pay:`,
    overdueSubject: (merchant, number) => `Overdue: invoice ${number} from ${merchant}`,
    overdueBody: (dueDate, due) => `Your invoice was due on ${dueDate}. ${due} is still left to pay:`,
    viewButton: "View and pay the invoice",
    number: "Invoice",
    total: "Total",
    amountDue: "Left to pay",
    dueDate: "Due date",
    attached: "The invoice is attached as a PDF.",
    footer: (merchant) => `Sent by paygate for ${merchant}, to the customer this invoice is addressed to.`,
  },
  fr: {
    invoiceSubject: (merchant, number) => `Facture ${number} de ${merchant}`,
    invoiceBody: (merchant, total) => `${merchant} vous a envoyé une facture de ${total}. Consultez-la et payez-la en ligne\u00a0:`,
    reminderSubject: (merchant, number) => `Rappel\u00a0: facture ${number} de ${merchant}`,
    reminderBody: (days, dueDate, due) => `Votre facture est à payer dans ${days} jour(s), le ${dueDate}. Il reste ${due} à payer\u00a0:`,
    dueTodayBody: (due) => `Votre facture est à payer aujourd'hui. Il reste ${due} à payer\u00a0:`,
    overdueSubject: (merchant, number) => `En retard\u00a0: facture ${number} de ${merchant}`,
    overdueBody: (dueDate, due) => `Votre facture était à payer le ${dueDate}. Il reste ${due} à payer\u00a0:`,
    viewButton: "Voir et payer la facture",
    number: "Facture",
    total: "Total",
    amountDue: "Reste à payer",
    dueDate: "Échéance",
    attached: "La facture est jointe en PDF.",
    footer: (merchant) => `Envoyé par paygate pour ${merchant}, au client à qui cette facture est adressée.`,
  },
  es: {
    invoiceSubject: (merchant, number) => `Factura ${number} de ${merchant}`,
    invoiceBody: (merchant, total) => `${merchant} le envió una factura por ${total}. Véala y páguela en línea:`,
    reminderSubject: (merchant, number) => `Recordatorio: factura ${number} de ${merchant}`,
    reminderBody: (days, dueDate, due) => `Su factura vence en ${days} día(s), el ${dueDate}. Quedan ${due} por pagar:`,
    dueTodayBody: (due) => `Su factura vence hoy. Quedan ${due} por pagar:`,
    overdueSubject: (merchant, number) => `Vencida: factura ${number} de ${merchant}`,
    overdueBody: (dueDate, due) => `Su factura venció el ${dueDate}. Aún quedan ${due} por pagar:`,
    viewButton: "Ver y pagar la factura",
    number: "Factura",
    total: "Total",
    amountDue: "Por pagar",
    dueDate: "Vencimiento",
    attached: "La factura va adjunta en PDF.",
    footer: (merchant) => `Enviado por paygate para ${merchant}, al cliente a quien va dirigida esta factura.`,
  },
  pt: {
    invoiceSubject: (merchant, number) => `Fatura ${number} de ${merchant}`,
    invoiceBody: (merchant, total) => `${merchant} enviou a você uma fatura de ${total}. Veja e pague online:`,
    reminderSubject: (merchant, number) => `Lembrete: fatura ${number} de ${merchant}`,
    reminderBody: (days, dueDate, due) => `Sua fatura vence em ${days} dia(s), em ${dueDate}. Faltam ${due} a pagar:`,
    dueTodayBody: (due) => `Sua fatura vence hoje. Faltam ${due} a pagar:`,
    overdueSubject: (merchant, number) => `Vencida: fatura ${number} de ${merchant}`,
    overdueBody: (dueDate, due) => `Sua fatura venceu em ${dueDate}. Ainda faltam ${due} a pagar:`,
    viewButton: "Ver e pagar a fatura",
    number: "Fatura",
    total: "Total",
    amountDue: "A pagar",
    dueDate: "Vencimento",
    attached: "A fatura segue anexa em PDF.",
    footer: (merchant) => `Enviado pelo paygate para ${merchant}, ao cliente a quem esta fatura se destina.`,
  },
  de: {
    invoiceSubject: (merchant, number) => `Rechnung ${number} von ${merchant}`,
    invoiceBody: (merchant, total) => `${merchant} hat Ihnen eine Rechnung über ${total} gesendet. Online ansehen und bezahlen:`,
    reminderSubject: (merchant, number) => `Erinnerung: Rechnung ${number} von ${merchant}`,
    reminderBody: (days, dueDate, due) => `Ihre Rechnung ist in ${days} Tag(en) fällig, am ${dueDate}. Offen sind noch ${due}:`,
    dueTodayBody: (due) => `Ihre Rechnung ist heute fällig. Offen sind noch ${due}:`,
    overdueSubject: (merchant, number) => `Überfällig: Rechnung ${number} von ${merchant}`,
    overdueBody: (dueDate, due) => `Ihre Rechnung war am ${dueDate} fällig. Offen sind noch ${due}:`,
    viewButton: "Rechnung ansehen und bezahlen",
    number: "Rechnung",
    total: "Gesamt",
    amountDue: "Offen",
    dueDate: "Fällig am",
    attached: "Die Rechnung ist als PDF angehängt.",
    footer: (merchant) => `Von paygate für ${merchant} gesendet, an den Kunden, an den diese Rechnung gerichtet ist.`,
  },
  ar: {
    invoiceSubject: (merchant, number) => `الفاتورة ${number} من ${merchant}`,
    invoiceBody: (merchant, total) => `أرسل إليك ${merchant} فاتورة بمبلغ ${total}. اعرضها وادفعها عبر الإنترنت:`,
    reminderSubject: (merchant, number) => `تذكير: الفاتورة ${number} من ${merchant}`,
    reminderBody: (days, dueDate, due) => `تستحق فاتورتك خلال ${days} يوم، في ${dueDate}. المتبقي للدفع ${due}:`,
    dueTodayBody: (due) => `تستحق فاتورتك اليوم. المتبقي للدفع ${due}:`,
    overdueSubject: (merchant, number) => `متأخرة: الفاتورة ${number} من ${merchant}`,
    overdueBody: (dueDate, due) => `كانت فاتورتك مستحقة في ${dueDate}. لا يزال المتبقي للدفع ${due}:`,
    viewButton: "اعرض الفاتورة وادفعها",
    number: "الفاتورة",
    total: "الإجمالي",
    amountDue: "المتبقي للدفع",
    dueDate: "تاريخ الاستحقاق",
    attached: "الفاتورة مرفقة بصيغة PDF.",
    footer: (merchant) => `أرسله paygate نيابة عن ${merchant} إلى العميل الموجهة إليه هذه الفاتورة.`,
  },
};
