// GET /v1/events/stream (issue 27): the secret key's merchant's events of its mode as Server-Sent
// Events, each as it is written on any instance (what `paygate listen` follows). The stream and its
// cursor are the core's (src/core/events/stream.ts); here the SSE framing, the heartbeat and the caps
// on open streams, per key and per instance.
import { Router } from "express";
import { errors, PaygateError, RetryLaterError } from "../../../core/errors.ts";
import type { PaymentGateway } from "../../../core/gateway.ts";
import type { WebhookEvent } from "../../../core/records/rows.ts";
import { CappedPlaces, credentialDigest, type EventStreamLimits, type LiveConnections } from "../../../edge/connection-limits.ts";

export { DEFAULT_EVENT_STREAM_LIMITS, type EventStreamLimits } from "../../../edge/connection-limits.ts";
import { sendError } from "../../../edge/errors.ts";
import { bearerToken } from "../../../edge/headers.ts";
import { clientAddress } from "../../../edge/rate-limits.ts";
import { eventObject } from "./presenters.ts";
import type { EventStreamMessage } from "./schemas.ts";

/** What a client waits before reconnecting after the stream drops (the SSE `retry:` field). */
const RECONNECT_MS = 2_000;
/** A cap on open streams frees up as soon as one closes: a short wait. */
const RETRY_AFTER_SECONDS = 10;

/** The stream caps' refusals (src/core/errors.ts), with this route's wait before a retry. */
export const eventStreamErrors = {
  tooManyForKey: (limit: number) => errors.tooManyEventStreams(limit, RETRY_AFTER_SECONDS),
  full: (limit: number) => errors.eventStreamsFull(limit),
};

/** The event as GET /v1/events/:id shows it, with its exact signed body (what a forwarder signs and sends). */
export function streamMessage(event: WebhookEvent): EventStreamMessage {
  return { ...eventObject(event), body: event.body };
}

export interface EventStreamRoutes {
  router: Router;
  /** Ends every open stream (a stopping service: they never end by themselves). */
  close(): void;
}

export function eventStreamRoutes(gateway: PaymentGateway, live: LiveConnections, limits: EventStreamLimits): EventStreamRoutes {
  const router = Router();
  // The streams of this instance, per key (by a digest: nothing holds the key) and in all.
  const slots = new CappedPlaces<"key">({ total: limits.total, key: limits.perKey });
  const open = new Set<() => void>();
  let closing = false;

  router.get("/v1/events/stream", async (req, res) => {
    if (closing) return sendError(res, errors.serviceStopping());
    const token = bearerToken(req.headers.authorization);
    const lastEventId = req.headers["last-event-id"];
    // Authenticated and the cursor found before anything is held or sent: a refusal is a plain JSON error.
    const stream = await gateway.webhooks.openEventStream(token, {
      params: { ...req.query },
      lastEventId: Array.isArray(lastEventId) ? lastEventId[0] : lastEventId,
    });
    res.locals.merchantId = stream.merchantId;
    const slot = slots.acquire({ key: credentialDigest(token ?? "") });
    if ("cap" in slot) {
      await stream.return();
      return sendError(res, slot.cap === "total" ? eventStreamErrors.full(slot.limit) : eventStreamErrors.tooManyForKey(slot.limit));
    }
    const lease = live.acquire(clientAddress(req), token);
    if ("cap" in lease) {
      slot.release();
      await stream.return();
      return sendError(res, new RetryLaterError(lease.message, "too_many_live_connections", lease.retryAfterSeconds));
    }
    const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), limits.heartbeatMs);
    const end = () => {
      clearInterval(heartbeat);
      slot.release();
      lease.release();
      open.delete(end);
      void stream.return();
      if (!res.writableEnded) res.end();
    };
    open.add(end);
    res.once("close", end);
    req.socket.setNoDelay(true);
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no", // nginx: pass each event on at once
    });
    // A first comment flushes the headers: a client knows the stream is open before any event comes.
    res.write(`retry: ${RECONNECT_MS}\n: connected to the ${stream.isLive ? "live" : "test"} events of merchant ${stream.merchantId}\n\n`);
    try {
      for await (const event of stream) {
        if (res.writableEnded) break;
        res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(streamMessage(event))}\n\n`);
      }
    } catch (error) {
      // The database failed mid-stream: the client reconnects with Last-Event-ID and misses nothing.
      res.write(
        `event: error\ndata: ${JSON.stringify({ message: error instanceof PaygateError ? error.message : "The stream failed; reconnect" })}\n\n`,
      );
    } finally {
      end();
    }
  });

  return {
    router,
    close() {
      closing = true;
      for (const end of [...open]) end();
    },
  };
}
