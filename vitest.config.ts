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
  "test/tools/sweep-tron-transactions.test.ts",
  "test/tools/sweep-tron.test.ts",
  "test/rails/refunds/consolidation-psbt.test.ts",
  // The rails' pure parts (derivation, QR, URIs, price parsers, node clients against protocol fakes).
  "test/rails/{key-checks,tron-addresses,qr,hd-derivation,payment-uri,regtest-network,addresses}.test.ts",
  "test/rails/http/**",
  "test/rails/prices/{fallback,exact-json,median,binance,kraken,config,coinbase,coingecko}.test.ts",
  "test/rails/chains/{evm-rpc,esplora-network,esplora,watchers,node-pool}.test.ts",
  // The core's pure rules, signing, password hashing, generated code and documents.
  "test/core/{invoice-rules,webhook-url,retry-after,deliveries,networks,watch-shares,reversal-rules,refund-rules,rate-sources,capped-places,watch-pass,refund-watch,own-address-idle-scan}.test.ts",
  "test/webhooks/signing.test.ts",
  // A remembered initialized row as text (initiate-memory.ts), without a database.
  "test/db/initiate-memory-rows.test.ts",
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
  // The bench's table (bench/report.ts).
  "test/bench/**",
  "sdk/test/generated.test.ts",
  // The pages' own code (web/), without a service.
  "test/web/**",
];

/**
 * What asserts on elapsed time (a claim within 50 ms, a second process before the 10 s lock wait, a
 * shutdown's deadline, a retry's delay): run after the rest, one file at a time, on a machine that is
 * quiet again. The rest runs two files at once: on CI's 2 cores one file leaves about a third of the
 * CPU idle (waiting on the browser, the nodes, PostgreSQL).
 */
const TIMED = [
  "test/jobs/payment-watcher.test.ts",
  "test/ops/{shutdown-subscriptions,dist,shutdown,cli-while-serving}.test.ts",
  "test/observability/{metrics,webhook-deliveries-backlog}.test.ts",
  "test/http/{mode-walls,hostile-property}.test.ts",
  "test/rails/http/outbound.test.ts",
  "test/rails/prices/coingecko.test.ts",
  "test/rails/chains/{evm-rpc,esplora}.test.ts",
  "test/db/{second-process,rate-limit-counters,notifications}.test.ts",
  "test/webhooks/{http-sender,dispatcher-wake}.test.ts",
  "test/dashboard/{management-routes,refunds}.test.ts",
];

// sdk/ (issue 27) is tested against the real service too, with the same support code.
// The shop plugins (integrations/*, issue 44) start a real shop on PostgreSQL: that pass only.
const include = ["test/**/*.test.ts", "sdk/test/**/*.test.ts", ...(postgres ? ["integrations/*/test/**/*.test.ts"] : [])];
const exclude = [...configDefaults.exclude, ...(postgres ? ONE_PASS_ONLY : ["test/postgres/**"])];

export default defineConfig({
  resolve: {
    // graphql as Node resolves it (its CommonJS entry), as Apollo, graphql-tools, graphql-ws and
    // graphql-sse load it: Vite would pick its ESM build ("module") for our own files, and a schema
    // from one copy is refused by the other's validate() ("from another module or realm").
    alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve("graphql") }],
  },
  test: {
    testTimeout: 30_000,
    // A file that drives Chromium (`// @module-tag browser` on its first line) opens pages and runs
    // axe-core in steps of seconds: one such test took 5 s alone and over 30 s beside another file's
    // browser on CI's 2 cores. A hang still fails, later (test/lint/browser-tag.test.ts keeps the tag on).
    tags: [{ name: "browser", description: "Drives a real Chromium", timeout: 90_000 }],
    hookTimeout: 60_000,
    // A worker runs its files one after another in one module graph: each file used to import the
    // service anew (about 2.6 s of a loaded machine's time, 12 of a CI pass's 40 minutes). Every
    // file makes its own gateway and database, so none sees another's state; what a file changes
    // of the process (its environment, timers, the clock) it sets back before it ends.
    isolate: false,
    // Each project is given its whole include and exclude: `extends` would append them to the root's.
    projects: [
      { extends: true, test: { name: "paygate", include, exclude: [...exclude, ...TIMED], maxWorkers: 2 } },
      { extends: true, test: { name: "timed", include: TIMED, exclude, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
