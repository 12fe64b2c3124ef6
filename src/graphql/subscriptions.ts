// GraphQL subscriptions (docs/graphql.md, Live updates): graphql-ws on the HTTP server's WebSocket upgrades
// at /graphql, and graphql-sse (Server-Sent Events, for clients without WebSockets) at
// /graphql/stream. Both run the schema of POST /graphql with its limits (depth, cost, aliases,
// directives, tokens) and its error shapes, and take subscriptions only: queries and mutations go
// to POST /graphql, where Idempotency-Keys, CSRF prevention and HTTP statuses apply.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import express, { type Request, type RequestHandler, type Response } from "express";
import {
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  getOperationAST,
  parse,
  specifiedRules,
  type ValidationRule,
  validate,
} from "graphql";
import { createHandler as createSseHandler } from "graphql-sse/lib/use/express";
import { CloseCode } from "graphql-ws";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import { errors, RetryLaterError } from "../core/errors.ts";
import type { PaymentGateway } from "../core/gateway.ts";
import type { LiveConnections, LiveRefusal } from "../edge/connection-limits.ts";
import { type CorsSettings, credentialKind, SECRET_KEY_IN_BROWSER } from "../edge/cors.ts";
import { bearerToken } from "../edge/headers.ts";
import { clientAddress, type LimitRefusal, type LiveRateLimits } from "../edge/rate-limits.ts";
import { HTTP_STATUS } from "../edge/status.ts";
import type { Logger } from "../logging.ts";
import type { GraphQLContext } from "./context.ts";
import { formatError, graphqlErrorBody, toGraphQLError } from "./errors.ts";
import { MAX_TOKENS } from "./server.ts";

/** The WebSocket path: the same as POST /graphql (Express's matching: any case, an optional trailing slash). */
const WS_PATH = /^\/graphql\/?$/i;
/** Largest message a client may send over the WebSocket (as the JSON body limit of POST /graphql). */
const MAX_WS_MESSAGE_BYTES = 64 * 1024;
/** How long closing WebSockets may take their close handshake before they are cut. */
const CLOSE_GRACE_MS = 1_000;

/** graphql-ws's close code for a refused connection: 4429, as HTTP's 429 (codes 4000–4999 are the application's). */
export const CLOSE_TOO_MANY = 4429;

export interface SubscriptionOptions {
  /**
   * The HTTP rate limits, which upgrades never reach through Express's middleware: an upgrade and
   * each WebSocket subscription count as a request, and refusals as failed authentications count
   * against the address. None: not limited.
   */
  limits?: LiveRateLimits;
  /** A WebSocket upgrade's client address, as Express would see it (PAYGATE_TRUST_PROXY). */
  clientAddress: (request: IncomingMessage) => string;
  /** The caps on open event streams and WebSockets (src/edge/connection-limits.ts). */
  live: LiveConnections;
  schema: GraphQLSchema;
  /** The limits' validation rules (graphql-armor), as POST /graphql applies them. */
  validationRules: ValidationRule[];
  hideSuggestions: boolean;
  cors: CorsSettings;
}

export interface SubscriptionTransports {
  /** graphql-sse, to mount at /graphql/stream (before /graphql). */
  sse: RequestHandler[];
  /** Takes the WebSocket upgrades of /graphql on this server. */
  serveWebSockets(server: Server): void;
  /**
   * Ends every subscription: WebSockets with 1001 (Going Away), event streams by ending them. They
   * never finish by themselves, so a stopping service does this first (src/main.ts).
   */
  close(): Promise<void>;
}

export function createSubscriptions(gateway: PaymentGateway, options: SubscriptionOptions, logger: Logger): SubscriptionTransports {
  const rules = [...specifiedRules, ...options.validationRules];
  const format = formatError({ hideSuggestions: options.hideSuggestions });
  let closing = false;

  /** Parses, validates and checks one operation as POST /graphql would; errors carry Apollo's codes. */
  function prepare<C extends GraphQLContext>(
    payload: { query?: unknown; variables?: unknown; operationName?: unknown },
    contextValue: C,
  ): (ExecutionArgs & { contextValue: C }) | GraphQLError[] {
    if (typeof payload.query !== "string") return [requestError("Send the subscription as `query`", "BAD_REQUEST")];
    let document: ReturnType<typeof parse>;
    try {
      document = parse(payload.query, { maxTokens: MAX_TOKENS });
    } catch (error) {
      return [requestError(error instanceof GraphQLError ? error.message : "Syntax Error", "GRAPHQL_PARSE_FAILED", error)];
    }
    const invalid = validate(options.schema, document, rules);
    if (invalid.length > 0) return invalid.map((error) => requestError(error.message, "GRAPHQL_VALIDATION_FAILED", error));
    const operationName = typeof payload.operationName === "string" ? payload.operationName : undefined;
    const operation = getOperationAST(document, operationName);
    if (!operation)
      return [requestError("Name the operation to run (operationName): the document has none or several", "OPERATION_RESOLUTION_FAILURE")];
    if (operation.operation !== "subscription") {
      return [requestError(`Only subscriptions are served here; send a ${operation.operation} to POST /graphql`, "BAD_REQUEST")];
    }
    const variableValues =
      typeof payload.variables === "object" && payload.variables !== null ? (payload.variables as Record<string, unknown>) : undefined;
    return { schema: options.schema, document, operationName, variableValues, contextValue };
  }

  /** Formats errors as POST /graphql does; the unexpected ones are logged and shown as the 500 message. */
  function formatErrors(list: readonly GraphQLError[], requestId: string): GraphQLFormattedError[] {
    return list.map((error) => {
      if (error.extensions?.code === undefined) {
        logger.error(
          { request_id: requestId, err: error.originalError ?? error, path: error.path?.join(".") },
          "unexpected error in a GraphQL subscription",
        );
      }
      return format(error.toJSON());
    });
  }

  function formatResult(result: ExecutionResult, requestId: string): FormattedExecutionResult {
    return result.errors ? { ...result, errors: formatErrors(result.errors, requestId) } : (result as FormattedExecutionResult);
  }

  // ── WebSocket (graphql-ws) ────────────────────────────────────────────────────────────────────
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_WS_MESSAGE_BYTES });
  const servers = new Set<Server>();
  const requestIds = new WeakMap<object, string>();
  const ws = useServer<{ authorization?: unknown } | undefined>(
    {
      // Never the internal error's own message in a close reason.
      isProd: true,
      onConnect: (ctx) => {
        const { request, socket } = ctx.extra;
        const authorization = authorizationOf(ctx.connectionParams, request);
        const refusal = browserRefusal(request, authorization, options.cors);
        if (refusal) {
          socket.close(CloseCode.Forbidden, refusal);
          return false;
        }
        // The upgrade counted the address; the credential is known only now (connectionParams).
        if (authorization === undefined) return true;
        const lease = options.live.acquireCredential(addressOf(request), authorization);
        if ("cap" in lease) {
          socket.close(CLOSE_TOO_MANY, lease.closeReason);
          return false;
        }
        socket.once("close", lease.release);
        return true;
      },
      onSubscribe: async (ctx, _id, payload) => {
        // graphql-ws has reserved this one's id already: a socket may hold the cap, and no more.
        const { subscriptionsPerSocket } = options.live.limits;
        if (Object.keys(ctx.subscriptions).length > subscriptionsPerSocket) {
          return [
            toGraphQLError(
              new RetryLaterError(
                `Too many subscriptions on this WebSocket: at most ${subscriptionsPerSocket} at once (PAYGATE_LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET); complete one first`,
                "too_many_subscriptions",
                1,
              ),
            ),
          ];
        }
        const address = addressOf(ctx.extra.request);
        const authorization = authorizationOf(ctx.connectionParams, ctx.extra.request);
        const refusal = await admit(authorization, address);
        if (refusal) return [toGraphQLError(new RetryLaterError(refusal.message, refusal.reason, refusal.retryAfterSeconds))];
        const requestId = randomUUID();
        const context: GraphQLContext = {
          gateway,
          bearerToken: bearerToken(authorization),
          clientAddress: address,
          idempotencyKey: undefined,
          requestId,
          seenMerchant: () => {},
          // A refused credential counts against the address as REST's does: a guesser is stopped after the same number.
          seenErrorReasons: (reasons) => countAnswered(address, reasons),
        };
        const prepared = prepare(payload, context);
        if (Array.isArray(prepared)) return prepared;
        requestIds.set(context, requestId);
        return prepared;
      },
      onOperation: (_ctx, _id, _payload, args, result) => reportRefusals(args.contextValue, result),
      onNext: (_ctx, _id, _payload, args, result) => formatResult(result, requestIdOf(args.contextValue)),
      onError: (_ctx, _id, _payload, list) => formatErrors(list, "-"),
    },
    wss,
  );
  const addresses = new WeakMap<IncomingMessage, string>();
  const addressOf = (request: IncomingMessage) => addresses.get(request) ?? options.clientAddress(request);

  /** One request of the rate limits; the counters failing (the database is down) lets it through, as on HTTP. */
  async function admit(authorization: string | undefined, address: string): Promise<LimitRefusal | null> {
    if (!options.limits) return null;
    try {
      return await options.limits.admit(authorization, address);
    } catch {
      return null;
    }
  }
  /** Counted before the refusal is sent (as on HTTP), so a client learns of a failure only once it counts. */
  async function countAnswered(address: string, reasons: readonly string[]): Promise<void> {
    await options.limits?.answered(address, reasons).catch(() => {});
  }

  const requestIdOf = (context: unknown) => (typeof context === "object" && context !== null ? (requestIds.get(context) ?? "-") : "-");

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (closing || !WS_PATH.test(path)) {
      socket.end(`HTTP/1.1 ${closing ? "503 Service Unavailable" : "404 Not Found"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const address = options.clientAddress(request);
    const lease = options.live.acquire(address, undefined);
    if ("cap" in lease) return refuseUpgrade(socket, { ...lease, reason: "too_many_live_connections" });
    // The raw socket closes however the upgrade ends (refused, failed, or a WebSocket closed later).
    socket.once("close", lease.release);
    addresses.set(request, address);
    const upgrade = () => wss.handleUpgrade(request, socket, head, (client) => wss.emit("connection", client, request));
    admit(request.headers.authorization, address).then((refusal) => (refusal ? refuseUpgrade(socket, refusal) : upgrade()));
  };

  // ── Server-Sent Events (graphql-sse) ──────────────────────────────────────────────────────────
  const streams = new Set<Response>();
  const sse = createSseHandler<GraphQLContext & Record<PropertyKey, unknown>>({
    // Distinct connections only (one stream per subscription): no reservations to keep per client.
    authenticate: () => null,
    onSubscribe: (req, params) => {
      const res = req.context.res;
      const context: GraphQLContext & Record<PropertyKey, unknown> = {
        gateway,
        bearerToken: bearerToken(req.raw.headers.authorization),
        clientAddress: clientAddress(req.raw),
        idempotencyKey: undefined,
        requestId: String(res.locals.requestId),
        seenMerchant: (id: number) => {
          res.locals.merchantId = id;
        },
        seenErrorReasons: (reasons: string[]) => {
          res.locals.errorReasons = reasons;
        },
      };
      const prepared = prepare(params, context);
      if (!Array.isArray(prepared)) return prepared;
      const body = { errors: formatErrors(prepared, context.requestId) };
      const status = Math.max(...body.errors.map((e) => (typeof e.extensions?.status === "number" ? e.extensions.status : 400)));
      return [JSON.stringify(body), { status, statusText: "", headers: { "content-type": "application/json; charset=utf-8" } }];
    },
    onOperation: (ctx, _req, _args, result) => reportRefusals(ctx, result),
    // The formatted errors are plain objects where graphql-sse's type says GraphQLError; it only serialises them.
    onNext: (ctx, _req, result) => formatResult(result as ExecutionResult, ctx.requestId) as ExecutionResult,
  });
  const streamHandler: RequestHandler = async (req: Request, res: Response, next) => {
    if (closing) return next(errors.serviceStopping());
    // graphql-sse answers only an exact `Accept: text/event-stream` (what EventSource sends).
    if (!/\btext\/event-stream\b/i.test(req.headers.accept ?? "")) {
      res.status(HTTP_STATUS.bad_request).json(graphqlErrorBody(errors.badRequest("Send Accept: text/event-stream", "event_stream_required")));
      return;
    }
    req.headers.accept = "text/event-stream";
    const lease = options.live.acquire(clientAddress(req), bearerToken(req.headers.authorization));
    if ("cap" in lease) {
      res.setHeader("Retry-After", String(lease.retryAfterSeconds));
      res.status(HTTP_STATUS.rate_limited).json(graphqlErrorBody(liveRefusalError(lease)));
      return;
    }
    res.once("close", lease.release);
    streams.add(res);
    res.once("close", () => streams.delete(res));
    try {
      await sse(req, res);
    } catch (error) {
      logger.error({ request_id: res.locals.requestId, err: error }, "GraphQL event stream failed");
      if (!res.headersSent) return next(errors.internal());
      res.end();
    }
  };

  return {
    sse: [express.json({ limit: "64kb" }), streamHandler],
    serveWebSockets(server) {
      servers.add(server);
      server.on("upgrade", onUpgrade);
    },
    async close() {
      if (closing) return;
      closing = true;
      for (const server of servers) server.off("upgrade", onUpgrade);
      for (const res of streams) res.end();
      const open = [...wss.clients];
      const cut = setTimeout(() => {
        for (const client of open) client.terminate();
      }, CLOSE_GRACE_MS);
      await ws.dispose();
      await Promise.all(
        open.map((client) => (client.readyState === client.CLOSED ? undefined : new Promise((resolve) => client.once("close", resolve)))),
      );
      clearTimeout(cut);
    },
  };
}

/** The credential of a WebSocket: `connectionParams.authorization`, else the upgrade request's Authorization header. */
function authorizationOf(connectionParams: { authorization?: unknown } | undefined, request: IncomingMessage): string | undefined {
  const fromParams = connectionParams?.authorization;
  return typeof fromParams === "string" ? fromParams : request.headers.authorization;
}

/**
 * The browser rules of src/edge/cors.ts for WebSockets, which CORS does not cover: a browser always
 * sends Origin; it must be an allowed one, and may not carry a server-only credential.
 */
function browserRefusal(request: IncomingMessage, authorization: string | undefined, cors: CorsSettings): string | null {
  const origin = request.headers.origin;
  if (origin === undefined) return null;
  if (cors.origins !== "*" && !cors.origins.includes(origin)) return "This origin may not use the API (PAYGATE_CORS_ORIGINS)";
  const kind = credentialKind(authorization);
  return kind && !kind.browser ? SECRET_KEY_IN_BROWSER : null;
}

function requestError(message: string, code: string, original?: unknown): GraphQLError {
  const source = original instanceof GraphQLError ? original : undefined;
  return new GraphQLError(message, { nodes: source?.nodes, source: source?.source, positions: source?.positions, extensions: { code } });
}

/** A subscription refused before it streamed (a failed authentication, say): its reasons go to the rate limits. */
async function reportRefusals(context: unknown, result: unknown): Promise<undefined> {
  // Both libraries hand over the awaited result: an iterator (a stream began) or an ExecutionResult.
  if (typeof result !== "object" || result === null || Symbol.asyncIterator in result || !("errors" in result)) return undefined;
  const { errors } = result as ExecutionResult;
  if (!errors || !isContext(context)) return undefined;
  const reasons = errors.map((error) => error.extensions?.reason).filter((reason): reason is string => typeof reason === "string");
  if (reasons.length > 0) await context.seenErrorReasons(reasons);
  return undefined;
}

function isContext(value: unknown): value is GraphQLContext {
  return typeof value === "object" && value !== null && "seenErrorReasons" in value && typeof value.seenErrorReasons === "function";
}

function liveRefusalError(refusal: LiveRefusal): RetryLaterError {
  return new RetryLaterError(refusal.message, "too_many_live_connections", refusal.retryAfterSeconds);
}

/** Answers an upgrade with 429 and the REST error body, before the socket becomes a WebSocket. */
function refuseUpgrade(socket: Duplex, refusal: { message: string; reason: string; retryAfterSeconds: number }): void {
  const body = JSON.stringify({ status: "error", message: refusal.message, code: "rate_limited", reason: refusal.reason, errors: [] });
  socket.end(
    `HTTP/1.1 429 Too Many Requests\r\nRetry-After: ${refusal.retryAfterSeconds}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
