-- Jobs enqueued inside a transaction the queue cannot join (one on another database) wait for that transaction:
-- until it commits, run_at holds a time that never comes and the requested due time waits here. NULL for every
-- other job. Adding a nullable column rewrites nothing: existing files keep their rows as they are.
ALTER TABLE ${prefix}jobs ADD COLUMN held_run_at INTEGER;
