// The route a request matched, as the request log, the error log and the metrics name it: the edge and the
// metrics both read it here, so the metrics import nothing from the edge.
import type { Request } from "express";

/** The matched route's pattern (`/v1/transaction/:transaction_id`), so log lines group by route, not by id. */
export function routeOf(req: Request): string {
  const route: unknown = req.route;
  const pattern = typeof route === "object" && route !== null && "path" in route && typeof route.path === "string" ? route.path : "";
  return `${req.baseUrl}${pattern}` || "(no route)";
}
