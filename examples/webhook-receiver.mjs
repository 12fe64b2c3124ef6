// A merchant's webhook endpoint in ten lines: verifies each delivery with the standardwebhooks library.
// Usage: node examples/webhook-receiver.mjs whsec_… [port]   (then POSTs to http://127.0.0.1:4000/webhooks)
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";

const webhook = new Webhook(process.argv[2] ?? "");
const port = Number(process.argv[3] ?? 4000);
createServer((req, res) => {
  let body = "";
  req
    .on("data", (chunk) => (body += chunk))
    .on("end", () => {
      try {
        const { event, data } = webhook.verify(body, req.headers);
        console.log(`verified ${event}: ${data.transaction.reference} is ${data.transaction.status}`);
        res.end("ok");
      } catch (error) {
        console.log(`rejected a delivery: ${error.message}`);
        res.writeHead(400).end();
      }
    });
}).listen(port, "127.0.0.1", () => console.log(`receiving webhooks on http://127.0.0.1:${port}/webhooks`));
