-- How far a running job says it is (JobContext.progress), as on SQLite (its V8): written with the handler's heartbeat
-- at most every few seconds, fenced on the run, and kept after the job ends (the last value reported). Nullable
-- columns without a default, so adding them rewrites no row. ${prefix} is jobqueue.table-prefix.
ALTER TABLE ${prefix}jobs
    ADD COLUMN progress_done    bigint,
    ADD COLUMN progress_total   bigint,
    ADD COLUMN progress_message text,
    ADD COLUMN progress_at      timestamptz;
