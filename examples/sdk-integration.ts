// A shop's server-side integration with the SDK: an order becomes a paygate transaction (its checkout
// URL handed to the customer), and the order is marked paid by the signed payment.received webhook, never
// by the customer's browser coming back. Orders live in memory here; yours live in your database.
// Usage: PAYGATE_URL=http://127.0.0.1:3000 PAYGATE_PUBLIC_KEY=pub_test_… PAYGATE_SECRET_KEY=sec_test_… \
//          PAYGATE_WEBHOOK_SECRET=whsec_… npx tsx examples/sdk-integration.ts [port]
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
// In your project: import { … } from "@paygate/sdk";
import { createPaygate, PaygateApiError, type WebhookEvent } from "../sdk/src/index.ts";
import { webhookReceiver } from "./sdk-receiver.ts";

export interface Order {
  id: string;
  email: string;
  amount: string;
  transactionId: string;
  reference: string;
  checkoutUrl: string;
  status: "awaiting_payment" | "paid" | "cancelled" | "reversed";
}

export interface ShopOptions {
  paygateUrl: string;
  /** initialize takes the public key (spec 4); the rest the secret key. */
  publicKey: string;
  secretKey: string;
  webhookSecret: string;
}

export function createShop(options: ShopOptions) {
  const paygate = createPaygate({ baseUrl: options.paygateUrl, publicKey: options.publicKey, secretKey: options.secretKey });
  const orders = new Map<string, Order>();
  const byReference = new Map<string, Order>();

  /** An order of `amount` USD: one transaction, made once however often this is retried (the Idempotency-Key). */
  async function placeOrder(email: string, amount: string): Promise<Order> {
    const id = randomUUID();
    const transaction = await paygate.transactions.initialize(
      { customer: { email }, currency: "USD", amount, description: `Order ${id}`, meta: { order_id: id } },
      { idempotencyKey: `order-${id}` },
    );
    const order: Order = {
      id,
      email,
      amount,
      transactionId: transaction.id,
      reference: transaction.reference,
      checkoutUrl: transaction.checkout_url ?? "",
      status: "awaiting_payment",
    };
    orders.set(id, order);
    byReference.set(order.reference, order);
    return order;
  }

  /** The webhook decides: payment.received pays the order; abandoned cancels it; reversed flags it. */
  function handleEvent(event: WebhookEvent): void {
    if (!("transaction" in event.data)) return; // webhook.test, settlement and invoice events concern no order
    const order = byReference.get(event.data.transaction.reference);
    if (!order) return; // not an order of this shop (a payment link's, say)
    if (event.event === "payment.received") order.status = "paid";
    else if (event.event === "payment.abandoned" && order.status === "awaiting_payment") order.status = "cancelled";
    else if (event.event === "payment.reversed") order.status = "reversed";
  }

  const receive = webhookReceiver(options.webhookSecret, handleEvent);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://shop");
    if (url.pathname === "/webhooks") return receive(req, res);
    if (req.method === "POST" && url.pathname === "/orders") {
      void (async () => {
        let text = "";
        for await (const chunk of req) text += chunk;
        const { email, amount } = JSON.parse(text || "{}") as { email?: string; amount?: string };
        try {
          const order = await placeOrder(email ?? "", amount ?? "");
          res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ order_id: order.id, checkout_url: order.checkoutUrl }));
        } catch (error) {
          // paygate's message names the field (customer.email, amount): show it to the customer.
          const status = error instanceof PaygateApiError && error.status < 500 ? 400 : 502;
          res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: (error as Error).message }));
        }
      })();
      return;
    }
    const match = /^\/orders\/([0-9a-f-]+)$/.exec(url.pathname);
    const order = match ? orders.get(match[1] ?? "") : undefined;
    if (req.method === "GET" && order) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: order.id, status: order.status }));
      return;
    }
    res.writeHead(404).end();
  });

  return {
    server,
    orders,
    placeOrder,
    async listen(port = 0): Promise<string> {
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { PAYGATE_URL = "http://127.0.0.1:3000", PAYGATE_PUBLIC_KEY, PAYGATE_SECRET_KEY, PAYGATE_WEBHOOK_SECRET } = process.env;
  if (!PAYGATE_PUBLIC_KEY || !PAYGATE_SECRET_KEY || !PAYGATE_WEBHOOK_SECRET) {
    console.error(
      "usage: PAYGATE_PUBLIC_KEY=pub_test_… PAYGATE_SECRET_KEY=sec_test_… PAYGATE_WEBHOOK_SECRET=whsec_… npx tsx examples/sdk-integration.ts [port]",
    );
    process.exit(2);
  }
  const shop = createShop({
    paygateUrl: PAYGATE_URL,
    publicKey: PAYGATE_PUBLIC_KEY,
    secretKey: PAYGATE_SECRET_KEY,
    webhookSecret: PAYGATE_WEBHOOK_SECRET,
  });
  const url = await shop.listen(Number(process.argv[2] ?? 4000));
  console.log(`shop on ${url}: POST /orders {"email","amount"} → checkout_url; webhooks on ${url}/webhooks`);
}
