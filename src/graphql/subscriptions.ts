// GraphQL subscriptions (README, Live updates): graphql-ws on the HTTP server's WebSocket upgrades
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
import { errors } from "../core/errors.ts";
import type { PaymentGateway } from "../core/gateway.ts";
import { type CorsSettings, credentialKind, SECRET_KEY_IN_BROWSER } from "../http/cors.ts";
import { bearerToken } from "../http/headers.ts";
import { HTTP_STATUS } from "../http/status.ts";
import type { Logger } from "../logging.ts";
import type { GraphQLContext } from "./context.ts";
import { formatError, graphqlErrorBody } from "./errors.ts";
import { MAX_TOKENS } from "./server.ts";

/** The WebSocket path: the same as POST /graphql (Express's matching: any case, an optional trailing slash). */
const WS_PATH = /^\/graphql\/?$/i;
/** Largest message a client may send over the WebSocket (as the JSON body limit of POST /graphql). */
const MAX_WS_MESSAGE_BYTES = 64 * 1024;
/** How long closing WebSockets may take their close handshake before they are cut. */
const CLOSE_GRACE_MS = 1_000;

/** A WebSocket upgrade the rate limits refuse: answered 429 before the socket becomes a WebSocket. */
export interface UpgradeRefusal {
  retryAfterSeconds: number;
  message: string;
}

export interface SubscriptionOptions {
  /**
   * Counts an upgrade as one request of its client (the HTTP rate limits: upgrades never reach
   * Express's middleware); a refusal is answered 429. Rejects when the counters fail: let through.
   */
  admitUpgrade?: (request: IncomingMessage) => Promise<UpgradeRefusal | null>;
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
        const refusal = browserRefusal(ctx.extra.request, authorizationOf(ctx.connectionParams, ctx.extra.request), options.cors);
        if (!refusal) return true;
        ctx.extra.socket.close(CloseCode.Forbidden, refusal);
        return false;
      },
      onSubscribe: (ctx, _id, payload) => {
        const requestId = randomUUID();
        const context: GraphQLContext = {
          gateway,
          bearerToken: bearerToken(authorizationOf(ctx.connectionParams, ctx.extra.request)),
          idempotencyKey: undefined,
          requestId,
          seenMerchant: () => {},
          // A WebSocket is one connection authorized once: its refusals close it rather than count.
          seenErrorReasons: () => {},
        };
        const prepared = prepare(payload, context);
        if (Array.isArray(prepared)) return prepared;
        requestIds.set(context, requestId);
        return prepared;
      },
      onNext: (_ctx, _id, _payload, args, result) => formatResult(result, requestIdOf(args.contextValue)),
      onError: (_ctx, _id, _payload, list) => formatErrors(list, "-"),
    },
    wss,
  );
  const requestIdOf = (context: unknown) => (typeof context === "object" && context !== null ? (requestIds.get(context) ?? "-") : "-");

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (closing || !WS_PATH.test(path)) {
      socket.end(`HTTP/1.1 ${closing ? "503 Service Unavailable" : "404 Not Found"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const upgrade = () => wss.handleUpgrade(request, socket, head, (client) => wss.emit("connection", client, request));
    if (!options.admitUpgrade) return upgrade();
    options.admitUpgrade(request).then(
      (refusal) => {
        if (!refusal) return upgrade();
        const body = JSON.stringify({ status: "error", message: refusal.message, code: "rate_limited", reason: "rate_limited", errors: [] });
        socket.end(
          `HTTP/1.1 429 Too Many Requests\r\nRetry-After: ${refusal.retryAfterSeconds}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      },
      // The counters failed (the database is down): as on HTTP, the limits do not turn that into a refusal.
      () => upgrade(),
    );
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
 * The browser rules of src/http/cors.ts for WebSockets, which CORS does not cover: a browser always
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
