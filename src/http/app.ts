// The Express application: routes, request ids, errors. main.ts gives it a running gateway.
import { randomUUID } from "node:crypto";
import express, { type Express } from "express";
import type { PaymentGateway } from "../core/gateway.ts";
import { createGraphQL, type GraphQLOptions } from "../graphql/server.ts";
import { errorHandler, notFound } from "./errors.ts";
import { transactionRoutes } from "./v1/transactions.ts";

export interface AppOptions {
  gateway: PaymentGateway;
  /** Answers when the database answers; used by GET /healthz. */
  ping: () => Promise<void>;
  log?: (line: string) => void;
  logRequests?: boolean;
  graphql?: GraphQLOptions;
}

export interface PaygateApp {
  app: Express;
  /** Stops what the app runs besides the HTTP server (the GraphQL server). */
  stop(): Promise<void>;
}

export async function createApp(options: AppOptions): Promise<PaygateApp> {
  const log = options.log ?? ((line: string) => console.error(line));
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  app.use((req, res, next) => {
    const requestId = randomUUID();
    res.locals.requestId = requestId;
    res.setHeader("X-Request-Id", requestId);
    if (options.logRequests) {
      const started = process.hrtime.bigint();
      res.on("finish", () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        log(`${req.method} ${req.path} ${res.statusCode} ${ms.toFixed(1)}ms id=${requestId}`);
      });
    }
    next();
  });

  app.get("/healthz", async (_req, res) => {
    try {
      await options.ping();
      res.json({ status: "ok", database: "ok" });
    } catch {
      res.status(503).json({ status: "error", database: "unreachable" });
    }
  });

  app.use(transactionRoutes(options.gateway));
  const graphql = await createGraphQL(options.gateway, options.graphql ?? { introspection: false, landingPage: false }, log);
  app.use("/graphql", ...graphql.handler);
  app.use(notFound);
  app.use(errorHandler(log));
  return { app, stop: graphql.stop };
}
