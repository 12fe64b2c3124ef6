// A merchant's webhook endpoint on 127.0.0.1: records every request and answers as told.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export type Answer = { status: number; body?: string; delayMs?: number } | "hang";

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Decides the answer to each request; 200 by default. */
  answer: (request: ReceivedWebhook, index: number) => Answer;
  /** Resolves once `count` requests have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  ids(): string[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: WebhookReceiver = {
    url: "",
    received: [],
    answer: () => ({ status: 200, body: "ok" }),
    waitFor(count, timeoutMs = 20_000) {
      if (receiver.received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} webhooks, got ${receiver.received.length} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    ids: () => receiver.received.map((r) => String(r.headers["webhook-id"])),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), receivedAt: Date.now() };
      const index = receiver.received.length;
      receiver.received.push(request);
      for (const w of waiters.filter((w) => receiver.received.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const answer = receiver.answer(request, index);
      if (answer === "hang") return;
      setTimeout(() => res.writeHead(answer.status).end(answer.body ?? ""), answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return receiver;
}
