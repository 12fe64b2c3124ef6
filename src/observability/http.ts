// The HTTP side of the metrics: a counter and a latency observation per request, and GET /metrics.
import type { RequestHandler } from "express";
import { routeOf } from "./route.ts";
import type { PaygateMetrics } from "./metrics.ts";

/**
 * Counts each response when it has been sent, by route pattern (as the request log groups them:
 * never the raw path, so ids do not make series), method and status. Nothing else on the hot path.
 */
export function httpMetrics(metrics: PaygateMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once("finish", () => {
      metrics.httpRequest(routeOf(req), req.method, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

/** GET /metrics: the Prometheus text exposition. Unauthenticated: bind or firewall it (docs/metrics.md). */
export function metricsEndpoint(metrics: PaygateMetrics): RequestHandler {
  return async (_req, res) => {
    const body = await metrics.render();
    res.setHeader("Content-Type", metrics.contentType);
    res.setHeader("Cache-Control", "no-store");
    res.end(body);
  };
}
