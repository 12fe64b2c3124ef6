// One webhook delivery attempt over real HTTP. Retries, scheduling and recording belong to the caller;
// this never throws, so every attempt yields a DeliveryResult to record.
import { lookup as dnsLookup } from "node:dns";
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { StringDecoder } from "node:string_decoder";
import { isPublicAddress, type WebhookMode } from "../core/merchants/webhook-url.ts";

export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  mode: WebhookMode;
  allowPrivate: boolean;
}

export interface DeliveryResult {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  responseBody: string | null;
  error: string | null;
}

/** Enough of the receiver's answer to show a merchant why it failed, and no more. */
export const MAX_RESPONSE_BYTES = 1024;

/** Raised by the guarded lookup; its message is shown to the merchant as is. */
class RefusedAddressError extends Error {}

export async function deliver(request: DeliveryRequest): Promise<DeliveryResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failure = (error: string): DeliveryResult => ({ ok: false, statusCode: null, latencyMs: elapsed(), responseBody: null, error });

  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return failure("invalid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return failure(`unsupported protocol ${url.protocol}`);

  const guarded = request.mode === "live" && !request.allowPrivate;
  const literal = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  // Node connects to literal IPs without calling `lookup`, so those are checked here.
  if (guarded && isIP(literal) !== 0 && !isPublicAddress(literal)) {
    return failure(`refused: ${literal} is a private address`);
  }

  const options: RequestOptions = {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": "paygate-webhooks/1",
      ...request.headers,
      "content-length": String(Buffer.byteLength(request.body, "utf8")),
    },
    // A fresh connection per attempt: attempts to one merchant are minutes apart, so pooling would
    // rarely reuse a socket, and a stale pooled one would fail with a spurious ECONNRESET.
    agent: false,
    ...(guarded ? { lookup: publicOnlyLookup } : {}),
  };

  return new Promise<DeliveryResult>((resolve) => {
    let settled = false;
    let req: ClientRequest | undefined;
    const settle = (result: DeliveryResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req?.destroy();
      resolve(result);
    };
    // One deadline for connect, headers and body together; req.setTimeout would only bound idle gaps.
    const deadline = setTimeout(() => settle(failure(`timed out after ${request.timeoutMs}ms`)), request.timeoutMs);

    const onResponse = (res: IncomingMessage) => {
      const statusCode = res.statusCode ?? 0;
      const decoder = new StringDecoder("utf8");
      let text = "";
      let received = 0;
      const done = () =>
        settle({ ok: statusCode >= 200 && statusCode < 300, statusCode, latencyMs: elapsed(), responseBody: text, error: null });
      res.on("data", (chunk: Buffer) => {
        const room = MAX_RESPONSE_BYTES - received;
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        received += part.length;
        // StringDecoder holds back a character cut in half at the limit rather than mangling it.
        text += decoder.write(part);
        if (received >= MAX_RESPONSE_BYTES) done();
      });
      res.on("end", () => {
        text += decoder.end();
        done();
      });
      res.on("error", (err) => settle(failure(describeError(err))));
      res.on("close", () => settle(failure("connection closed before the response was complete")));
    };

    try {
      req = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, options, onResponse);
      req.on("error", (err) => settle(failure(describeError(err))));
      req.end(request.body);
    } catch (err) {
      // Synchronous throws, e.g. a header value with a newline in it.
      settle(failure(describeError(err)));
    }
  });
}

/**
 * Resolves like the default lookup but fails when any address is not public. The socket connects to
 * exactly the addresses checked here, so DNS rebinding between check and connect is not possible.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { family: options.family ?? 0, hints: options.hints ?? 0, all: true }, (err, addresses) => {
    if (err) return callback(err, "");
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    const first = addresses[0];
    if (refused) {
      return callback(new RefusedAddressError(`refused: ${hostname} resolves to a private address (${refused.address})`), "");
    }
    if (!first) return callback(Object.assign(new Error(`no addresses for ${hostname}`), { code: "ENOTFOUND" }), "");
    // Node asks for all addresses when it races IPv4 and IPv6 (autoSelectFamily), otherwise for one.
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  });
};

const ERROR_NAMES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "DNS lookup failed temporarily",
  EPIPE: "connection closed while sending",
};

/** A short, stable message such as "connection refused (ECONNREFUSED)". */
function describeError(err: unknown): string {
  if (err instanceof RefusedAddressError) return err.message;
  if (!(err instanceof Error)) return "delivery failed";
  // With several addresses Node tries each and reports an AggregateError; the first cause is representative.
  const cause = err instanceof AggregateError && err.errors[0] instanceof Error ? err.errors[0] : err;
  const code = errorCode(err) ?? errorCode(cause);
  if (code && ERROR_NAMES[code]) return `${ERROR_NAMES[code]} (${code})`;
  const message = (cause.message || err.message || "delivery failed").slice(0, 200);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

function errorCode(err: Error): string | undefined {
  const code: unknown = (err as NodeJS.ErrnoException).code;
  return typeof code === "string" ? code : undefined;
}
