// The Vendure plugin: the paygate payment method handler, and POST /paygate/webhook (a Nest
// controller) for paygate's webhooks, whose raw body is kept for the signature check.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Controller, Inject, Post, Req, Res } from "@nestjs/common";
import { PluginCommonModule, type VendureConfig, VendurePlugin } from "@vendure/core";
import { paygatePaymentHandler } from "./handler.js";
import { PaygateWebhookService } from "./webhook-service.js";

export const PAYGATE_WEBHOOK_PATH = "/paygate/webhook";
/** A webhook body is a few KB; anything far larger is not paygate's. */
const MAX_BODY_BYTES = 1024 * 1024;

type RawRequest = IncomingMessage & { rawBody?: Buffer; body?: unknown; _body?: boolean };

/**
 * Reads the body as bytes before Vendure's JSON parser would (a `beforeListen` middleware on the
 * webhook's route only): the signature is over the exact bytes paygate sent.
 */
export function paygateRawBody(req: RawRequest, res: ServerResponse, next: (error?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on("end", () => {
    if (size > MAX_BODY_BYTES) {
      res.statusCode = 413;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ ok: false, message: "body too large" }));
      return;
    }
    req.rawBody = Buffer.concat(chunks);
    req.body = {};
    req._body = true; // body-parser: already read
    next();
  });
  req.on("error", (error) => next(error));
}

@Controller("paygate")
export class PaygateWebhookController {
  constructor(@Inject(PaygateWebhookService) private readonly webhooks: PaygateWebhookService) {}

  @Post("webhook")
  async webhook(@Req() req: RawRequest, @Res() res: ServerResponse): Promise<void> {
    const result = await this.webhooks.handle(req.rawBody, req.headers);
    res.statusCode = result.status;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(result.body));
  }
}

/** Vendure's RefundProcess (not exported by name from @vendure/core). */
type RefundProcess = NonNullable<NonNullable<VendureConfig["paymentOptions"]>["refundProcess"]>[number];

/**
 * A paygate refund is made at once but closes later, when the money moves on chain (refund.succeeded):
 * the handler answers `Pending`, which Vendure's default refund process does not take as a first
 * transition (Pending → Pending). This adds that one transition, nothing else.
 */
export const paygateRefundProcess: RefundProcess = { transitions: { Pending: { to: ["Pending"] } } };

@VendurePlugin({
  imports: [PluginCommonModule],
  controllers: [PaygateWebhookController],
  providers: [PaygateWebhookService],
  compatibility: "^3.0.0",
  configuration: (config) => {
    config.paymentOptions.paymentMethodHandlers.push(paygatePaymentHandler);
    config.paymentOptions.refundProcess = [...(config.paymentOptions.refundProcess ?? []), paygateRefundProcess];
    config.apiOptions.middleware.push({ route: PAYGATE_WEBHOOK_PATH, handler: paygateRawBody, beforeListen: true });
    return config;
  },
})
export class PaygatePlugin {}
