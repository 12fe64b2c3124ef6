// The test's Medusa application: the plugin (built into ../../.medusa/server) and its payment provider,
// configured from the environment the test gives the child process.
const path = require("node:path");
const { defineConfig } = require("@medusajs/framework/utils");

const plugin = path.resolve(__dirname, "../..");
// The plugin has no models, links or migrations: the test migrates without it while it compiles.
const migrateOnly = process.env.PAYGATE_TEST_MIGRATE_ONLY === "true";

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: { storeCors: "*", adminCors: "*", authCors: "*", jwtSecret: "paygate-test", cookieSecret: "paygate-test" },
  },
  admin: { disable: true },
  plugins: migrateOnly ? [] : [{ resolve: plugin, options: {} }],
  modules: migrateOnly
    ? []
    : [
        {
          resolve: "@medusajs/medusa/payment",
          options: {
            providers: [
              {
                resolve: path.join(plugin, ".medusa/server/src/providers/paygate"),
                id: "paygate",
                options: {
                  url: process.env.PAYGATE_URL,
                  publicKey: process.env.PAYGATE_PUBLIC_KEY,
                  secretKey: process.env.PAYGATE_SECRET_KEY,
                  webhookSecret: process.env.PAYGATE_WEBHOOK_SECRET,
                  returnUrl: "http://127.0.0.1:8000/order/confirmed",
                },
              },
            ],
          },
        },
      ],
});
