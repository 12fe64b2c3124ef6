import { defineConfig } from "prisma/config";

// Only `prisma generate` is used through the CLI (see scripts/prisma-generate.mjs);
// migrations run through the WebAssembly schema engine in src/db/migrations.ts.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
