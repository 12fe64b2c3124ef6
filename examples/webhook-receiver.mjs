// A merchant's webhook endpoint: verifies each delivery with the standardwebhooks library, then handles it.
// Usage: node examples/webhook-receiver.mjs whsec_… [port]   (then POSTs to http://127.0.0.1:4000/webhooks)
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";

if (!process.argv[2]?.startsWith("whsec_")) {
  console.error("usage: node examples/webhook-receiver.mjs whsec_… [port]   (the merchant's webhook signing secret)");
  process.exit(2);
}
const webhook = new Webhook(process.argv[2]);
const port = Number(process.argv[3] ?? 4000);
createServer((req, res) => {
  let body = "";
  req
    .on("data", (chunk) => (body += chunk))
    .on("end", () => {
      // First the signature: nothing in an unverified body is trusted, not even its event name.
      let delivery;
      try {
        delivery = webhook.verify(body, req.headers);
      } catch (error) {
        console.log(`rejected a delivery: invalid signature (${error.message})`);
        res
          .writeHead(401, { "content-type": "text/plain" })
          .end("invalid webhook signature: is the receiver using the merchant's whsec_ signing secret?\n");
        return;
      }
      const { event, data } = delivery;
      if (event === "webhook.test") {
        // The dashboard's "Send a test event" (or `paygate webhooks send-test`): no payment, nothing to do.
        console.log(`verified webhook.test: the ${data.mode} endpoint works`);
      } else if (event.startsWith("payment.") && data?.transaction) {
        const { reference, status } = data.transaction;
        console.log(`verified ${event}: ${reference} is ${status}`);
        // Fulfil the order here on payment.received (status SUCCESSFUL); the webhook-id header tells repeats apart.
      } else {
        console.log(`verified ${event}: not handled here`);
      }
      res.end("ok");
    });
}).listen(port, "127.0.0.1", () => console.log(`receiving webhooks on http://127.0.0.1:${port}/webhooks`));
