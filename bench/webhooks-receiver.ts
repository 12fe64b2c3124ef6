// The merchant's end of bench/webhooks.ts: an HTTP server on 127.0.0.1 that answers 200 at once and
// notes when each delivery arrived, with its webhook-id and the transaction reference of its body.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Arrival {
  id: string;
  reference: string | null;
  /** performance.now() of this process, to compare with the commit times noted here. */
  at: number;
}

export class WebhookReceiver {
  arrivals: Arrival[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const at = performance.now();
        res.writeHead(200).end();
        const id = req.headers["webhook-id"];
        receiver.arrivals.push({ id: typeof id === "string" ? id : "", reference: referenceOf(Buffer.concat(chunks).toString("utf8")), at });
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}/webhooks`);
    return receiver;
  }

  /** The first arrival of each webhook-id; later ones are duplicates. */
  firstArrivals(): Map<string, Arrival> {
    const first = new Map<string, Arrival>();
    for (const arrival of this.arrivals) if (!first.has(arrival.id)) first.set(arrival.id, arrival);
    return first;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

/** `data.transaction.reference` of an event body, or null. */
function referenceOf(body: string): string | null {
  try {
    const reference = (JSON.parse(body) as { data?: { transaction?: { reference?: unknown } } }).data?.transaction?.reference;
    return typeof reference === "string" ? reference : null;
  } catch {
    return null;
  }
}
