// A real Vendure 3 server for the plugin's end-to-end test: its own PostgreSQL database (created here,
// dropped by close()), the schema made by TypeORM's synchronize, a minimal catalogue (one country and
// zone, a 0 % tax rate, one shipping method, one product), the paygate payment method pointing at the
// test's paygate, a card-like method (Vendure's dummy handler) and a gift card paying part of an order, and the Shop and Admin
// GraphQL APIs over HTTP.
import { createServer } from "node:net";
import type { INestApplication } from "@nestjs/common";
import { bootstrap, DefaultLogger, dummyPaymentHandler, LanguageCode, LogLevel, PaymentMethodHandler, type VendureConfig } from "@vendure/core";
import { populate } from "@vendure/core/cli";
import { PaygatePlugin } from "../src/index.js";

/** A gift card worth 30.00: it pays what it can of an order and leaves the rest to another method (Vendure's split payments). */
export const giftCardHandler = new PaymentMethodHandler({
  code: "gift-card",
  description: [{ languageCode: LanguageCode.en, value: "Gift card (30.00)" }],
  args: {},
  createPayment: (_ctx, _order, amount) => ({ amount: Math.min(amount, 3000), state: "Settled", transactionId: "gift-30" }),
  settlePayment: () => ({ success: true }),
});

export interface GraphQLAnswer<T> {
  data: T;
  errors?: { message: string }[];
}

export interface VendureShop {
  url: string;
  webhookUrl: string;
  /** A Shop API session of its own (a customer's browser): its bearer token is kept between calls; `search` e.g. `?currencyCode=EUR`. */
  customer(search?: string): <T>(query: string, variables?: Record<string, unknown>) => Promise<GraphQLAnswer<T>>;
  admin<T>(query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer<T>>;
  /** The one product's variant id. */
  variantId: string;
  close(): Promise<void>;
}

export interface PaygateMethodSettings {
  apiUrl: string;
  publicKey: string;
  secretKey: string;
  webhookSecret: string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Runs SQL on the server's maintenance database (CREATE / DROP DATABASE). */
export type AdminSql = (sql: string) => Promise<void>;

export async function startVendure(options: {
  databaseUrl: string;
  adminSql: AdminSql;
  port: number;
  paygate: PaygateMethodSettings;
}): Promise<VendureShop> {
  process.env.VENDURE_DISABLE_TELEMETRY = "true";
  const name = `vendure_paygate_${Math.random().toString(16).slice(2, 10)}`;
  await options.adminSql(`CREATE DATABASE "${name}"`);
  const db = new URL(options.databaseUrl);
  const config: VendureConfig = {
    apiOptions: { port: options.port, hostname: "127.0.0.1", adminApiPath: "admin-api", shopApiPath: "shop-api" },
    authOptions: {
      tokenMethod: "bearer",
      requireVerification: false,
      superadminCredentials: { identifier: "superadmin", password: "superadmin" },
    },
    dbConnectionOptions: {
      type: "postgres",
      synchronize: true,
      host: db.hostname,
      port: Number(db.port || 5432),
      username: decodeURIComponent(db.username || "postgres"),
      password: decodeURIComponent(db.password),
      database: name,
      logging: false,
    },
    paymentOptions: { paymentMethodHandlers: [dummyPaymentHandler, giftCardHandler] },
    logger: new DefaultLogger({ level: LogLevel.Error }),
    plugins: [PaygatePlugin],
  };
  let app: INestApplication | undefined;
  const close = async () => {
    await app?.close();
    app = undefined;
    await options.adminSql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  };
  try {
    const arg = (key: string, value: string) => ({ name: key, value });
    app = await populate(() => bootstrap(config), {
      defaultLanguage: LanguageCode.en,
      defaultZone: "Europe",
      countries: [{ name: "United Kingdom", code: "GB", zone: "Europe" }],
      taxRates: [{ name: "Zero", percentage: 0 }],
      shippingMethods: [{ name: "Standard", price: 500 }],
      paymentMethods: [
        {
          name: "paygate",
          handler: {
            code: "paygate",
            arguments: [
              arg("apiUrl", options.paygate.apiUrl),
              arg("publicKey", options.paygate.publicKey),
              arg("secretKey", options.paygate.secretKey),
              arg("webhookSecret", options.paygate.webhookSecret),
              arg("returnUrl", "http://127.0.0.1:5173/order/{code}"),
              arg("cancelOrderOnExpiry", "true"),
            ],
          },
        },
        { name: "card", handler: { code: dummyPaymentHandler.code, arguments: [arg("automaticSettle", "true")] } },
        { name: "gift card", handler: { code: giftCardHandler.code, arguments: [] } },
      ],
      collections: [],
    });
  } catch (error) {
    await close();
    throw error;
  }
  const url = `http://127.0.0.1:${options.port}`;
  const post = async <T>(api: string, token: string | null, query: string, variables?: Record<string, unknown>, search = "") => {
    const response = await fetch(`${url}/${api}${search}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as GraphQLAnswer<T>;
    return { body, token: response.headers.get("vendure-auth-token") };
  };
  let adminToken: string | null = null;
  const admin = async <T>(query: string, variables?: Record<string, unknown>) => {
    if (!adminToken) {
      const login = await post<{ login: { id?: string } }>(
        "admin-api",
        null,
        `mutation { login(username: "superadmin", password: "superadmin") { ... on CurrentUser { id } } }`,
      );
      adminToken = login.token;
    }
    const answer = await post<T>("admin-api", adminToken, query, variables);
    if (answer.body.errors) throw new Error(`Admin API: ${JSON.stringify(answer.body.errors)}`);
    return answer.body;
  };
  const product = await admin<{ createProduct: { id: string } }>(
    `mutation { createProduct(input: { translations: [{ languageCode: en, name: "Ledger Nano", slug: "ledger-nano", description: "A wallet" }] }) { id } }`,
  );
  const variants = await admin<{ createProductVariants: { id: string }[] }>(
    `mutation($productId: ID!) { createProductVariants(input: [{ productId: $productId, sku: "NANO-1", price: 9500, stockOnHand: 100,
      translations: [{ languageCode: en, name: "Ledger Nano" }] }]) { id } }`,
    { productId: product.data.createProduct.id },
  );
  return {
    url,
    webhookUrl: `${url}/paygate/webhook`,
    variantId: variants.data.createProductVariants[0].id,
    admin,
    customer(search = "") {
      let token: string | null = null;
      return async <T>(query: string, variables?: Record<string, unknown>) => {
        const answer = await post<T>("shop-api", token, query, variables, search);
        token = answer.token ?? token;
        if (answer.body.errors) throw new Error(`Shop API: ${JSON.stringify(answer.body.errors)}`);
        return answer.body;
      };
    },
    close,
  };
}
