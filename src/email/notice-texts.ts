// The merchant's notices to its dashboard users (issue 44), in the language each user chose for them
// (its notice language: the dashboard's Security page, `paygate user notice-language`).
import type { CheckoutLocale } from "../core/transactions/locales.ts";

export interface NoticeTexts {
  paymentSubject: (merchant: string, reference: string) => string;
  paymentBody: (amount: string, customer: string) => string;
  endpointSubject: (merchant: string) => string;
  endpointBody: (url: string, failing: boolean) => string;
  unmatchedSubject: (merchant: string) => string;
  unmatchedBody: (amount: string, address: string) => string;
  unmatchedAfter: (receiptId: string) => string;
  reference: string;
  transaction: string;
  network: string;
  date: string;
  footer: (merchant: string) => string;
}

export const NOTICE_TEXTS: Record<CheckoutLocale, NoticeTexts> = {
  en: {
    paymentSubject: (merchant, reference) => `${merchant}: payment received (${reference})`,
    paymentBody: (amount, customer) => `A payment of ${amount} from ${customer} was received and confirmed.`,
    endpointSubject: (merchant) => `${merchant}: a webhook endpoint was disabled`,
    endpointBody: (url, failing) =>
      failing
        ? `The webhook endpoint ${url} was disabled: every delivery to it failed for too long. Fix it, then enable it again in the dashboard (Webhooks); the events it missed can be sent again from there.`
        : `The webhook endpoint ${url} was disabled by a user of your dashboard.`,
    unmatchedSubject: (merchant) => `${merchant}: a transfer matched no payment`,
    unmatchedBody: (amount, address) => `${amount} arrived on your own address ${address} but matched no open payment.`,
    unmatchedAfter: (id) => `Assign it to a transaction or mark it refunded in the dashboard (Settlement, unmatched receipts): ${id}.`,
    reference: "Reference",
    transaction: "Transaction",
    network: "Network",
    date: "Date",
    footer: (merchant) =>
      `Sent by paygate for ${merchant} because you asked for its notices by e-mail. Turn them off in the dashboard, on the Security page.`,
  },
  fr: {
    paymentSubject: (merchant, reference) => `${merchant}\u00a0: paiement reçu (${reference})`,
    paymentBody: (amount, customer) => `Un paiement de ${amount} de ${customer} a été reçu et confirmé.`,
    endpointSubject: (merchant) => `${merchant}\u00a0: un point de terminaison webhook a été désactivé`,
    endpointBody: (url, failing) =>
      failing
        ? `Le point de terminaison webhook ${url} a été désactivé\u00a0: chaque livraison a échoué trop longtemps. Corrigez-le, puis réactivez-le dans le tableau de bord (Webhooks)\u00a0; les événements manqués peuvent y être renvoyés.`
        : `Le point de terminaison webhook ${url} a été désactivé par un utilisateur de votre tableau de bord.`,
    unmatchedSubject: (merchant) => `${merchant}\u00a0: un virement ne correspond à aucun paiement`,
    unmatchedBody: (amount, address) => `${amount} est arrivé sur votre propre adresse ${address} sans correspondre à aucun paiement ouvert.`,
    unmatchedAfter: (id) =>
      `Attribuez-le à une transaction ou marquez-le remboursé dans le tableau de bord (Règlement, reçus non rapprochés)\u00a0: ${id}.`,
    reference: "Référence",
    transaction: "Transaction",
    network: "Réseau",
    date: "Date",
    footer: (merchant) =>
      `Envoyé par paygate pour ${merchant} parce que vous avez demandé ses notifications par e-mail. Désactivez-les dans le tableau de bord, page Sécurité.`,
  },
  es: {
    paymentSubject: (merchant, reference) => `${merchant}: pago recibido (${reference})`,
    paymentBody: (amount, customer) => `Se recibió y confirmó un pago de ${amount} de ${customer}.`,
    endpointSubject: (merchant) => `${merchant}: se desactivó un endpoint de webhook`,
    endpointBody: (url, failing) =>
      failing
        ? `El endpoint de webhook ${url} se desactivó: todas las entregas fallaron durante demasiado tiempo. Corríjalo y vuelva a activarlo en el panel (Webhooks); desde allí se pueden reenviar los eventos perdidos.`
        : `Un usuario de su panel desactivó el endpoint de webhook ${url}.`,
    unmatchedSubject: (merchant) => `${merchant}: una transferencia no corresponde a ningún pago`,
    unmatchedBody: (amount, address) => `Llegaron ${amount} a su propia dirección ${address} sin corresponder a ningún pago abierto.`,
    unmatchedAfter: (id) => `Asígnela a una transacción o márquela como reembolsada en el panel (Liquidación, recibos sin asignar): ${id}.`,
    reference: "Referencia",
    transaction: "Transacción",
    network: "Red",
    date: "Fecha",
    footer: (merchant) =>
      `Enviado por paygate para ${merchant} porque pidió sus avisos por correo. Desactívelos en el panel, en la página Seguridad.`,
  },
  pt: {
    paymentSubject: (merchant, reference) => `${merchant}: pagamento recebido (${reference})`,
    paymentBody: (amount, customer) => `Um pagamento de ${amount} de ${customer} foi recebido e confirmado.`,
    endpointSubject: (merchant) => `${merchant}: um endpoint de webhook foi desativado`,
    endpointBody: (url, failing) =>
      failing
        ? `O endpoint de webhook ${url} foi desativado: todas as entregas falharam por tempo demais. Corrija-o e ative-o novamente no painel (Webhooks); os eventos perdidos podem ser reenviados de lá.`
        : `O endpoint de webhook ${url} foi desativado por um usuário do seu painel.`,
    unmatchedSubject: (merchant) => `${merchant}: uma transferência não corresponde a nenhum pagamento`,
    unmatchedBody: (amount, address) => `${amount} chegou ao seu próprio endereço ${address} sem corresponder a nenhum pagamento aberto.`,
    unmatchedAfter: (id) => `Atribua-a a uma transação ou marque-a como reembolsada no painel (Liquidação, recebimentos sem correspondência): ${id}.`,
    reference: "Referência",
    transaction: "Transação",
    network: "Rede",
    date: "Data",
    footer: (merchant) => `Enviado pelo paygate para ${merchant} porque você pediu os avisos por e-mail. Desative-os no painel, na página Segurança.`,
  },
  de: {
    paymentSubject: (merchant, reference) => `${merchant}: Zahlung eingegangen (${reference})`,
    paymentBody: (amount, customer) => `Eine Zahlung von ${amount} von ${customer} ist eingegangen und bestätigt.`,
    endpointSubject: (merchant) => `${merchant}: ein Webhook-Endpunkt wurde deaktiviert`,
    endpointBody: (url, failing) =>
      failing
        ? `Der Webhook-Endpunkt ${url} wurde deaktiviert: Jede Zustellung schlug zu lange fehl. Beheben Sie das Problem und aktivieren Sie ihn im Dashboard (Webhooks) wieder; verpasste Ereignisse können dort erneut gesendet werden.`
        : `Der Webhook-Endpunkt ${url} wurde von einem Benutzer Ihres Dashboards deaktiviert.`,
    unmatchedSubject: (merchant) => `${merchant}: eine Überweisung passt zu keiner Zahlung`,
    unmatchedBody: (amount, address) => `${amount} ist auf Ihrer eigenen Adresse ${address} eingegangen, passt aber zu keiner offenen Zahlung.`,
    unmatchedAfter: (id) =>
      `Ordnen Sie sie im Dashboard einer Transaktion zu oder markieren Sie sie als erstattet (Abrechnung, nicht zugeordnete Eingänge): ${id}.`,
    reference: "Referenz",
    transaction: "Transaktion",
    network: "Netzwerk",
    date: "Datum",
    footer: (merchant) =>
      `Von paygate für ${merchant} gesendet, weil Sie dessen Benachrichtigungen per E-Mail angefordert haben. Abschalten im Dashboard auf der Seite Sicherheit.`,
  },
  ar: {
    paymentSubject: (merchant, reference) => `${merchant}: تم استلام دفعة (${reference})`,
    paymentBody: (amount, customer) => `تم استلام دفعة بقيمة ${amount} من ${customer} وتأكيدها.`,
    endpointSubject: (merchant) => `${merchant}: تم تعطيل نقطة نهاية webhook`,
    endpointBody: (url, failing) =>
      failing
        ? `تم تعطيل نقطة نهاية webhook ‏${url}: فشل كل إرسال إليها لمدة طويلة. أصلحها ثم فعّلها من جديد في لوحة التحكم (Webhooks)؛ يمكن إعادة إرسال الأحداث الفائتة من هناك.`
        : `قام مستخدم في لوحة التحكم بتعطيل نقطة نهاية webhook ‏${url}.`,
    unmatchedSubject: (merchant) => `${merchant}: تحويل لا يطابق أي دفعة`,
    unmatchedBody: (amount, address) => `وصل ${amount} إلى عنوانك الخاص ‏${address} ولم يطابق أي دفعة مفتوحة.`,
    unmatchedAfter: (id) => `اربطه بمعاملة أو علّمه كمُسترد في لوحة التحكم (التسوية، الإيصالات غير المطابقة): ‏${id}.`,
    reference: "المرجع",
    transaction: "المعاملة",
    network: "الشبكة",
    date: "التاريخ",
    footer: (merchant) => `أرسله paygate نيابة عن ${merchant} لأنك طلبت إشعاراته بالبريد الإلكتروني. أوقفها من لوحة التحكم في صفحة الأمان.`,
  },
};
