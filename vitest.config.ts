import { configDefaults, defineConfig } from "vitest/config";

// test/postgres/ holds what only a PostgreSQL server can show (a database that goes away and comes
// back); it runs when DATABASE_URL names one.
const postgres = Boolean(process.env.DATABASE_URL);

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...(postgres ? [] : ["test/postgres/**"])],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
