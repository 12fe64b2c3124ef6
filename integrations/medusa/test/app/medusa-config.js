// The test's Medusa application: the plugin (built into ../../.medusa/server) and its payment provider,
// configured from the environment the test gives the child process.
const path = require("node:path");
const { defineConfig } = require("@medusajs/framework/utils");

const plugin = path.resolve(__dirname, "../..");

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: { storeCors: "*", adminCors: "*", authCors: "*", jwtSecret: "paygate-test", cookieSecret: "paygate-test" },
  },
  admin: { disable: true },
  plugins: [{ resolve: plugin, options: {} }],
  modules: [
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
