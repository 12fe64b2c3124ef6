// A merchant's webhook endpoint written with the SDK: verifies each delivery (Standard Webhooks
// signature, the raw body), then handles the typed event. A bad signature is a 401 that says so.
// Usage: npx tsx examples/sdk-receiver.ts whsec_… [port]   (receives on http://127.0.0.1:4000/webhooks)
// With `paygate listen --forward-to http://127.0.0.1:4000/webhooks`, pass the secret it prints.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
// In your project: import { … } from "@paygate/sdk";
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from "../sdk/src/index.ts";

/** What the receiver does with a verified event (and the webhook-id, which tells a repeated delivery apart). */
export type EventHandler = (event: WebhookEvent, deliveryId: string) => void | Promise<void>;

/** The line the example prints for an event: each type is handled by name, with its typed fields. */
export function describeEvent(event: WebhookEvent): string {
  switch (event.event) {
    case "webhook.test":
      // The dashboard's "Send a test event" (or `paygate webhooks send-test`): no payment, nothing to do.
      return `verified webhook.test: the ${event.data.mode} endpoint works`;
    case "settlement.consolidation.seen":
    case "settlement.consolidation.confirmed":
    case "settlement.consolidation.canceled":
      // About a consolidation of settled BTC or LTC outputs (docs/settlement.md), not an order.
      return `verified ${event.event}: consolidation ${event.data.consolidation.id} is ${event.data.consolidation.state}`;
    case "settlement.flush.confirmed":
    case "settlement.flush.failed":
    case "settlement.flush.reorganized":
      // About a flush of EVM deposit forwarders to the settlement address (docs/settlement.md), not an order.
      return `verified ${event.event}: flush ${event.data.flush.id} of ${event.data.flush.payments.length} payments is ${event.data.flush.state}`;
    case "settlement.unmatched_receipt.created":
      // A transfer to one of your own TRON addresses that matched no open amount (docs/settlement.md): assign it or refund it.
      return `verified ${event.event}: ${event.data.unmatched_receipt.amount} ${event.data.unmatched_receipt.currency} to ${event.data.unmatched_receipt.address} matched no payment`;
    case "settlement.sweep.recorded":
      // A sweep of a fresh address you sent with tools/sweep, recorded in the ledger (docs/settlement.md).
      return `verified ${event.event}: ${event.data.sweep.amount} ${event.data.sweep.coin} swept from ${event.data.sweep.from_address}`;
    case "invoice.finalized":
    case "invoice.voided":
    case "invoice.paid":
    case "invoice.partially_paid":
    case "invoice.overdue":
      // About an invoice (docs/invoices.md): invoice.paid is the moment to mark it settled in your books.
      return `verified ${event.event}: invoice ${event.data.invoice.number ?? event.data.invoice.id} is ${event.data.invoice.state}`;
    case "payment.received":
      // Fulfil the order here (status SUCCESSFUL): amount_paid is what arrived, in the coin.
      return `verified payment.received: ${event.data.transaction.reference} is paid (${event.data.transaction.amount_paid} ${event.data.transaction.payment_currency_slug})`;
    case "payment.reversed":
      // The counted payment left the chain after success: hold the goods if not yet shipped.
      return `verified payment.reversed: ${event.data.transaction.reference} was reversed at ${event.data.transaction.reversed_at}`;
    default:
      return `verified ${event.event}: ${event.data.transaction.reference} is ${event.data.transaction.status}`;
  }
}

async function rawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The request handler: POST only, the signature first (nothing in an unverified body is trusted), then `onEvent`. */
export function webhookReceiver(secret: string, onEvent: EventHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void (async () => {
      if (req.method !== "POST") {
        res.writeHead(405, { allow: "POST" }).end();
        return;
      }
      const body = await rawBody(req);
      let event: WebhookEvent;
      try {
        event = verifyWebhook(body, req.headers, secret);
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        res.writeHead(401, { "content-type": "text/plain" }).end(`invalid webhook: ${error.message}\n`);
        return;
      }
      try {
        await onEvent(event, String(req.headers["webhook-id"]));
        res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
      } catch (error) {
        // A failure of ours: paygate retries the delivery later on its schedule.
        res.writeHead(500, { "content-type": "text/plain" }).end(`could not handle it: ${(error as Error).message}\n`);
      }
    })();
  };
}

/** Listens on 127.0.0.1:`port` (0: any free port); the URL to give paygate is `${url}/webhooks`. */
export async function startReceiver(secret: string, port: number, onEvent: EventHandler): Promise<{ server: Server; url: string }> {
  const server = createServer(webhookReceiver(secret, onEvent));
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const secret = process.argv[2];
  if (!secret?.startsWith("whsec_")) {
    console.error("usage: npx tsx examples/sdk-receiver.ts whsec_… [port]   (the endpoint's signing secret, or the one `paygate listen` printed)");
    process.exit(2);
  }
  const { url } = await startReceiver(secret, Number(process.argv[3] ?? 4000), (event) => console.log(describeEvent(event)));
  console.log(`receiving webhooks on ${url}`);
}
