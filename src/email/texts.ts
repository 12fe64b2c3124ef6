// The e-mails' own wording in the checkout's six languages (issue 44); what the paid page says too
// (the receipt's labels, its thank-you) is src/i18n/receipt-texts.ts, shared with the checkout.
import type { CheckoutLocale } from "../core/transactions/locales.ts";
import { RECEIPT_TEXTS, type ReceiptTexts } from "../i18n/receipt-texts.ts";

export interface EmailTexts extends ReceiptTexts {
  receiptSubject: (merchant: string) => string;
  payRestSubject: (merchant: string) => string;
  payRestBody: (paid: string, due: string, rest: string) => string;
  payRestButton: string;
  payBefore: (when: string) => string;
  refundSubject: (merchant: string) => string;
  refundBody: (merchant: string, amount: string) => string;
  refundButton: string;
  linkUntil: (when: string) => string;
  testMode: string;
  footer: (merchant: string) => string;
}

type OwnTexts = Omit<EmailTexts, keyof ReceiptTexts>;

const OWN: Record<CheckoutLocale, OwnTexts> = {
  en: {
    receiptSubject: (merchant) => `Your receipt from ${merchant}`,
    payRestSubject: (merchant) => `Your payment to ${merchant} is not complete`,
    payRestBody: (paid, due, rest) => `We received ${paid} of ${due}. Send the remaining ${rest} to complete your payment:`,
    payRestButton: "Pay the rest",
    payBefore: (when) => `Pay before ${when}.`,
    refundSubject: (merchant) => `${merchant} is sending you a refund`,
    refundBody: (merchant, amount) => `${merchant} is refunding you ${amount}. Give the address to receive it at:`,
    refundButton: "Give your refund address",
    linkUntil: (when) => `This link works once, until ${when}.`,
    testMode: "Test mode: no real money moved.",
    footer: (merchant) => `Sent by paygate for ${merchant}, because of a payment made with this e-mail address.`,
  },
  fr: {
    receiptSubject: (merchant) => `Votre reçu de ${merchant}`,
    payRestSubject: (merchant) => `Votre paiement à ${merchant} n'est pas complet`,
    payRestBody: (paid, due, rest) => `Nous avons reçu ${paid} sur ${due}. Envoyez les ${rest} restants pour compléter votre paiement\u00a0:`,
    payRestButton: "Payer le reste",
    payBefore: (when) => `Payez avant le ${when}.`,
    refundSubject: (merchant) => `${merchant} vous envoie un remboursement`,
    refundBody: (merchant, amount) => `${merchant} vous rembourse ${amount}. Indiquez l'adresse où le recevoir\u00a0:`,
    refundButton: "Indiquer votre adresse de remboursement",
    linkUntil: (when) => `Ce lien ne sert qu'une fois, jusqu'au ${when}.`,
    testMode: "Mode test\u00a0: aucun argent réel n'a circulé.",
    footer: (merchant) => `Envoyé par paygate pour ${merchant}, à la suite d'un paiement fait avec cette adresse e-mail.`,
  },
  es: {
    receiptSubject: (merchant) => `Su recibo de ${merchant}`,
    payRestSubject: (merchant) => `Su pago a ${merchant} no está completo`,
    payRestBody: (paid, due, rest) => `Hemos recibido ${paid} de ${due}. Envíe los ${rest} restantes para completar su pago:`,
    payRestButton: "Pagar el resto",
    payBefore: (when) => `Pague antes del ${when}.`,
    refundSubject: (merchant) => `${merchant} le envía un reembolso`,
    refundBody: (merchant, amount) => `${merchant} le reembolsa ${amount}. Indique la dirección donde recibirlo:`,
    refundButton: "Indicar su dirección de reembolso",
    linkUntil: (when) => `Este enlace sirve una sola vez, hasta el ${when}.`,
    testMode: "Modo de prueba: no se movió dinero real.",
    footer: (merchant) => `Enviado por paygate para ${merchant}, por un pago hecho con esta dirección de correo.`,
  },
  pt: {
    receiptSubject: (merchant) => `Seu recibo de ${merchant}`,
    payRestSubject: (merchant) => `Seu pagamento a ${merchant} não está completo`,
    payRestBody: (paid, due, rest) => `Recebemos ${paid} de ${due}. Envie os ${rest} restantes para completar seu pagamento:`,
    payRestButton: "Pagar o restante",
    payBefore: (when) => `Pague antes de ${when}.`,
    refundSubject: (merchant) => `${merchant} está enviando um reembolso`,
    refundBody: (merchant, amount) => `${merchant} está reembolsando ${amount}. Informe o endereço para recebê-lo:`,
    refundButton: "Informar seu endereço de reembolso",
    linkUntil: (when) => `Este link funciona uma vez, até ${when}.`,
    testMode: "Modo de teste: nenhum dinheiro real foi movimentado.",
    footer: (merchant) => `Enviado pelo paygate para ${merchant}, por causa de um pagamento feito com este endereço de e-mail.`,
  },
  de: {
    receiptSubject: (merchant) => `Ihr Beleg von ${merchant}`,
    payRestSubject: (merchant) => `Ihre Zahlung an ${merchant} ist nicht vollständig`,
    payRestBody: (paid, due, rest) => `Wir haben ${paid} von ${due} erhalten. Senden Sie die restlichen ${rest}, um Ihre Zahlung abzuschließen:`,
    payRestButton: "Rest bezahlen",
    payBefore: (when) => `Zahlen Sie vor ${when}.`,
    refundSubject: (merchant) => `${merchant} sendet Ihnen eine Erstattung`,
    refundBody: (merchant, amount) => `${merchant} erstattet Ihnen ${amount}. Geben Sie die Adresse an, an die sie gehen soll:`,
    refundButton: "Erstattungsadresse angeben",
    linkUntil: (when) => `Dieser Link gilt einmal, bis ${when}.`,
    testMode: "Testmodus: Es wurde kein echtes Geld bewegt.",
    footer: (merchant) => `Von paygate für ${merchant} gesendet, wegen einer Zahlung mit dieser E-Mail-Adresse.`,
  },
  ar: {
    receiptSubject: (merchant) => `إيصالك من ${merchant}`,
    payRestSubject: (merchant) => `دفعتك إلى ${merchant} غير مكتملة`,
    payRestBody: (paid, due, rest) => `استلمنا ${paid} من ${due}. أرسل المبلغ المتبقي ${rest} لإكمال دفعتك:`,
    payRestButton: "ادفع الباقي",
    payBefore: (when) => `ادفع قبل ${when}.`,
    refundSubject: (merchant) => `يرسل إليك ${merchant} مبلغًا مستردًا`,
    refundBody: (merchant, amount) => `يرد إليك ${merchant} مبلغ ${amount}. أدخل العنوان الذي تريد استلامه عليه:`,
    refundButton: "أدخل عنوان الاسترداد",
    linkUntil: (when) => `يعمل هذا الرابط مرة واحدة، حتى ${when}.`,
    testMode: "وضع الاختبار: لم تتحرك أموال حقيقية.",
    footer: (merchant) => `أرسله paygate نيابة عن ${merchant}، بسبب دفعة تمت بعنوان البريد الإلكتروني هذا.`,
  },
};

export function textsFor(locale: CheckoutLocale): EmailTexts {
  return { ...RECEIPT_TEXTS[locale], ...OWN[locale] };
}
