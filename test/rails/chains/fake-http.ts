// What a fake node does instead of answering properly, shared by the fake Esplora and EVM nodes.
import type { ServerResponse } from "node:http";

export type Failure =
  | null
  /** Accept the request and never answer (closeAllConnections() ends it). */
  | "hang"
  /** Cut the connection without an answer. */
  | "reset"
  /** An HTTP error status. */
  | { status: number; body?: string }
  /** HTTP 200 with this raw body (malformed JSON, a wrong shape, …). */
  | { raw: string };

/** Acts out `failure` on `res`; false when there is none and the request should be answered. */
export function actOut(failure: Failure, res: ServerResponse): boolean {
  if (failure === null) return false;
  if (failure === "hang") return true;
  if (failure === "reset") {
    res.socket?.destroy();
    return true;
  }
  if ("raw" in failure) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(failure.raw);
    return true;
  }
  res.writeHead(failure.status, { "content-type": "text/plain" });
  res.end(failure.body ?? "");
  return true;
}

/** JSON text with bigints written as JSON numbers of every digit (JSON.stringify refuses them). */
export function jsonWithBigInts(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `__RAW_NUMBER:${v.toString()}__` : v)).replace(
    /"__RAW_NUMBER:(-?\d+)__"/g,
    "$1",
  );
}
