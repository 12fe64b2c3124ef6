// POST /hooks/paygate: paygate's webhook endpoint. Unlike Medusa's generic /hooks/payment/<provider>
// (which answers 200 to anything and verifies later, in a subscriber), this route verifies the
// Standard Webhooks signature first and answers 401 on a bad one, then processes the event at once,
// answering 200 only once Medusa has recorded it (else 500: paygate retries the delivery).
import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http";
import type { IPaymentModuleService, MedusaContainer, WebhookActionResult } from "@medusajs/framework/types";
import { ContainerRegistrationKeys, Modules, PaymentActions, PaymentSessionStatus } from "@medusajs/framework/utils";
import { processPaymentWorkflow } from "@medusajs/medusa/core-flows";
import { isInvalidSignature } from "../../../providers/paygate/webhook";

/** The provider's key in the payment module: `pp_<identifier>_<id>`, the id `paygate` in medusa-config. */
export const PAYGATE_PROVIDER_ID = "pp_paygate_paygate";

/** Session states that a payment reached: never cancelled. */
const SETTLED = new Set<string>([PaymentSessionStatus.AUTHORIZED, PaymentSessionStatus.CAPTURED]);

export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const payments = req.scope.resolve<IPaymentModuleService>(Modules.PAYMENT);
  let result: WebhookActionResult;
  try {
    result = await payments.getWebhookActionAndData({
      provider: PAYGATE_PROVIDER_ID,
      payload: { data: (req.body ?? {}) as Record<string, unknown>, rawData: req.rawBody, headers: req.headers },
    });
  } catch (error) {
    if (isInvalidSignature(error)) {
      res.status(401).json({ message: (error as Error).message });
      return;
    }
    throw error;
  }
  const sessionId = result.data?.session_id;
  if (result.action === PaymentActions.NOT_SUPPORTED || !sessionId) {
    res.status(200).json({ received: true, action: "ignored" });
    return;
  }
  const [session] = await payments.listPaymentSessions({ id: sessionId }, { relations: ["payment", "payment_collection"] });
  if (!session || session.provider_id !== PAYGATE_PROVIDER_ID) {
    // A session Medusa dropped (the customer chose another payment provider): nothing of it to touch.
    res.status(200).json({ received: true, action: "ignored", reason: "no such paygate session" });
    return;
  }
  if (result.action === PaymentActions.CANCELED) {
    res.status(200).json({ received: true, action: await cancelSession(payments, session) });
    return;
  }
  await processPaymentWorkflow(req.scope as MedusaContainer).run({ input: result });
  const logger = req.scope.resolve(ContainerRegistrationKeys.LOGGER);
  logger.info(`paygate: ${result.action} for payment session ${sessionId}`);
  res.status(200).json({ received: true, action: result.action });
}

type Session = Awaited<ReturnType<IPaymentModuleService["listPaymentSessions"]>>[number];

/**
 * An expired checkout: its session is cancelled, unless a payment exists (a late payment accepted, a capture)
 * or its collection was paid otherwise (another provider's session): an order is never cancelled here.
 */
async function cancelSession(payments: IPaymentModuleService, session: Session): Promise<string> {
  const collectionStatus = session.payment_collection?.status;
  const collectionPaid = collectionStatus !== undefined && collectionStatus !== "not_paid" && collectionStatus !== "awaiting";
  if (session.payment || SETTLED.has(session.status) || collectionPaid) return "kept";
  await payments.updatePaymentSession({
    id: session.id,
    data: session.data,
    amount: session.amount,
    currency_code: session.currency_code,
    status: PaymentSessionStatus.CANCELED,
  });
  return "canceled";
}
