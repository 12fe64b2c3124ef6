-- CreateTable
-- UNLOGGED, written by hand (the Prisma schema has no word for it): rate-limit counters need no
-- durability, so their writes skip the write-ahead log. A crash empties the table, which only
-- forgives the windows under way, and standbys do not have it (counters restart after a failover).
-- (No semicolons in these comments: the PostgreSQL script is split on them.)
CREATE UNLOGGED TABLE "rate_limit_counters" (
    "key" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "hits" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("key","window_start")
);
