-- One chain transaction closes one refund (issue 42). The refund watcher kept the hashes it had used
-- in memory, so a restart or a second instance could close a second refund with the first's
-- transaction. Among succeeded refunds a tx_hash is now unique in its mode, in the database.
-- A database where that already happened refuses this index, naming the duplicated hash: see
-- docs/refunds.md (One transaction, one refund) for the query that finds such refunds.
CREATE UNIQUE INDEX "refunds_succeeded_tx_hash_key" ON "refunds"("is_live", "tx_hash") WHERE (state = 'succeeded');
