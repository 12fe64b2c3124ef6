export { PaygateClient, PaygateError, type PaygateRefund, type PaygateSettings, type PaygateTransaction } from "./client.js";
export { PAYGATE_HANDLER_CODE, type PaygateArgs, paygateHandlerArgs, paygatePaymentHandler, type PaygateSnapshot } from "./handler.js";
export { decimalMinus, minorToDecimal } from "./money.js";
export { PAYGATE_WEBHOOK_PATH, PaygatePlugin, PaygateWebhookController, paygateRawBody } from "./plugin.js";
export { PaygateWebhookService, type WebhookAnswer } from "./webhook-service.js";
