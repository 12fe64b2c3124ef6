import { createRequire } from "node:module";
import { configDefaults, defineConfig } from "vitest/config";

// test/postgres/ holds what only a PostgreSQL server can show (a database that goes away and comes
// back); it runs when DATABASE_URL names one. What reads no database (ONE_PASS_ONLY) runs on the
// embedded PGlite only: once per CI run, not once per database.
const postgres = Boolean(process.env.DATABASE_URL);

/** What reads no database: run once per CI run (the PGlite pass), not once per database. */
const ONE_PASS_ONLY = [
  "test/browser/**",
  // The dashboard in Chromium: its routes and rules run on both databases in test/dashboard/*.test.ts.
  "test/dashboard/browser/**",
  // Real nodes (anvil, Litecoin Core) driven by the rails alone, without a service.
  "test/rails/chains/evm-anvil.test.ts",
  "test/rails/chains/evm-finality-anvil.test.ts",
  "test/rails/chains/tron-anvil.test.ts",
  "test/rails/chains/core-node.test.ts",
  "test/rails/chains/own-node-doc.test.ts",
  "test/rails/chains/node-outages.test.ts",
  "test/rails/chains/bsc-usdt-anvil.test.ts",
  "test/rails/chains/utxo-holdings.test.ts",
  "test/rails/refunds/evm-fees-anvil.test.ts",
  // Deposit forwarders: the contracts on anvil, their committed bytecode against solc, the addresses off chain.
  "test/rails/evm/**",
  // The consolidation PSBT, pure, and a sweep plan's TRON figures on anvil without a service (issue 40).
  "test/rails/settlement/sweep-quotes-tron-anvil.test.ts",
  "test/tools/sweep-keys.test.ts",
  "test/rails/refunds/consolidation-psbt.test.ts",
  // The rails' pure parts (derivation, QR, URIs, price parsers, node clients against protocol fakes).
  "test/rails/{key-checks,tron-addresses,qr,hd-derivation,payment-uri,regtest-network,addresses}.test.ts",
  "test/rails/http/**",
  "test/rails/prices/{fallback,exact-json,median,binance,kraken,config,coinbase,coingecko}.test.ts",
  "test/rails/chains/{evm-rpc,esplora-network,esplora,watchers,node-pool}.test.ts",
  // The core's pure rules, signing, password hashing, generated code and documents.
  "test/core/{invoice-rules,webhook-url,retry-after,deliveries,networks,watch-shares,reversal-rules,refund-rules,rate-sources,capped-places,watch-pass,refund-watch}.test.ts",
  "test/webhooks/signing.test.ts",
  "test/dashboard/passwords.test.ts",
  "test/http/listening.test.ts",
  // The deployment files (Dockerfile, compose) read as text.
  "test/ops/{compose-public-url,deploy-files}.test.ts",
  "test/http/openapi-resources.test.ts",
  "test/graphql/codegen.test.ts",
  "test/graphql/currency-words.test.ts",
  "test/docs/configuration-doc.test.ts",
  // The import rules and the import-loop check: Biome and the source tree only.
  "test/lint/**",
  "sdk/test/generated.test.ts",
  // The pages' own code (web/), without a service.
  "test/web/**",
];

export default defineConfig({
  resolve: {
    // graphql as Node resolves it (its CommonJS entry), as Apollo, graphql-tools, graphql-ws and
    // graphql-sse load it: Vite would pick its ESM build ("module") for our own files, and a schema
    // from one copy is refused by the other's validate() ("from another module or realm").
    alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve("graphql") }],
  },
  test: {
    // sdk/ (issue 27) is tested against the real service too, with the same support code.
    // The shop plugins (integrations/*, issue 44) start a real shop on PostgreSQL: that pass only.
    include: ["test/**/*.test.ts", "sdk/test/**/*.test.ts", ...(postgres ? ["integrations/*/test/**/*.test.ts"] : [])],
    exclude: [...configDefaults.exclude, ...(postgres ? ONE_PASS_ONLY : ["test/postgres/**"])],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
