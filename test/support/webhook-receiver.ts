// A merchant's webhook endpoint on 127.0.0.1: records every request and answers as told.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

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
  /** Resolves once each of these event ids has arrived at least once: deliveries are at least once, so a count may include repeats. */
  waitForIds(ids: Iterable<string>, timeoutMs?: number): Promise<void>;
  ids(): string[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const waiters: { done: () => boolean; resolve: () => void }[] = [];
  const waitUntil = (done: () => boolean, timeoutMs: number, expected: () => string): Promise<void> => {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`expected ${expected()} within ${timeoutMs} ms`)), timeoutMs);
      waiters.push({
        done,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  };
  const receiver: WebhookReceiver = {
    url: "",
    received: [],
    answer: () => ({ status: 200, body: "ok" }),
    waitFor: (count, timeoutMs = 20_000) =>
      waitUntil(
        () => receiver.received.length >= count,
        timeoutMs,
        () => `${count} webhooks, got ${receiver.received.length}`,
      ),
    waitForIds(ids, timeoutMs = 20_000) {
      const wanted = new Set(ids);
      const missing = () => [...wanted].filter((id) => !receiver.ids().includes(id));
      return waitUntil(
        () => missing().length === 0,
        timeoutMs,
        () => `every one of ${wanted.size} events, still missing ${missing().join(", ")}`,
      );
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
      for (const w of waiters.filter((w) => w.done())) {
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

/** A payment event's body as a merchant reads it. */
export interface PaymentPayload {
  event: string;
  data: { transaction: Record<string, unknown> };
}

/** Any event's body: a payment's or refund's has `data.transaction`, a consolidation's `data.consolidation`, a flush's `data.flush`, an invoice's `data.invoice`. */
export interface EventPayload {
  event: string;
  data: {
    transaction?: Record<string, unknown>;
    consolidation?: Record<string, unknown>;
    flush?: Record<string, unknown>;
    invoice?: Record<string, unknown>;
    unmatched_receipt?: Record<string, unknown>;
    sweep?: Record<string, unknown>;
  };
}

/** Every event received so far, each verified with the merchant's `whsec_…` secret (throws if one is forged). */
export function allVerifiedPayloads(receiver: WebhookReceiver, webhookSecret: string): EventPayload[] {
  const verifier = new Webhook(webhookSecret);
  return receiver.received.map(
    (r) =>
      verifier.verify(r.body, {
        "webhook-id": String(r.headers["webhook-id"]),
        "webhook-timestamp": String(r.headers["webhook-timestamp"]),
        "webhook-signature": String(r.headers["webhook-signature"]),
      }) as EventPayload,
  );
}

/** The payment events received so far, each verified with the merchant's `whsec_…` secret (throws if one is forged), of one transaction (by its reference). */
export function verifiedPayloads(receiver: WebhookReceiver, webhookSecret: string, reference: string): PaymentPayload[] {
  return allVerifiedPayloads(receiver, webhookSecret).filter(
    (p): p is PaymentPayload => p.data.transaction !== undefined && p.data.transaction.reference === reference,
  );
}
