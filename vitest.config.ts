import { createRequire } from "node:module";
import { configDefaults, defineConfig } from "vitest/config";

// test/postgres/ holds what only a PostgreSQL server can show (a database that goes away and comes
// back); it runs when DATABASE_URL names one. test/browser/ and test/dashboard/browser/ (a real Chromium) and the tests on a
// real EVM node (anvil) and a real Litecoin Core node do not depend on the database, so they run on the embedded PGlite only:
// once per CI run, not once per database.
const postgres = Boolean(process.env.DATABASE_URL);

export default defineConfig({
  resolve: {
    // graphql as Node resolves it (its CommonJS entry), as Apollo, graphql-tools, graphql-ws and
    // graphql-sse load it: Vite would pick its ESM build ("module") for our own files, and a schema
    // from one copy is refused by the other's validate() ("from another module or realm").
    alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve("graphql") }],
  },
  test: {
    // sdk/ (issue 27) is tested against the real service too, with the same support code.
    include: ["test/**/*.test.ts", "sdk/test/**/*.test.ts"],
    exclude: [
      ...configDefaults.exclude,
      ...(postgres
        ? [
            "test/browser/**",
            // The dashboard in Chromium: its routes and rules run on both databases in test/dashboard/*.test.ts.
            "test/dashboard/browser/**",
            "test/rails/chains/evm-anvil.test.ts",
            "test/rails/chains/evm-finality-anvil.test.ts",
            "test/rails/chains/tron-anvil.test.ts",
            "test/rails/chains/core-node.test.ts",
            "test/rails/chains/node-outages.test.ts",
            "test/rails/chains/bsc-usdt-anvil.test.ts",
            "test/rails/chains/utxo-holdings.test.ts",
            // The pages' own code (web/), without a service: nothing here reads a database.
            "test/web/**",
          ]
        : ["test/postgres/**"]),
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
