// The payment watcher's shares of the watch list: the rule is the core's
// (src/core/transactions/watch-shares.ts), the slots' SQL is src/db/watch-slots.ts; the runtime
// puts them together (SlotWatchShares over PostgresWatchSlots on PostgreSQL, wholeWatchList on PGlite).
export { wholeWatchList, type WatchShare, type WatchShares } from "../core/transactions/watch-shares.ts";
