-- Flow control (issue 25), as on SQLite (its V17) and PostgreSQL (its V13): rate limits, limits per key, order per
-- key, rounds across keys. MySQL has no partial index, so every index holds every job; rather than add one, two
-- change:
--  - jobs_claim_type_idx takes the key after the type: a claim of jobs without a key reads (status, type, NULL) in
--    claim order (IS NULL is an index lookup), and the skip-scan over a type's keys with pending jobs reads one
--    entry per key.
--  - jobs_running_idx (status, type) becomes jobs_keyed_idx (status, type, job_key, id, run_at, priority): running
--    jobs by type as before (its prefix), and per key the running count, the pending jobs in enqueue order (id)
--    read from the index alone (without the priority, the planner read them from the claim index and sorted
--    them), and a failed job of the key.
-- job_rate_starts is the log of starts of rate-limited types and keys (job_key '' for a type's own limit: keys are
-- never blank), one row per start, written by the claim that starts the job and counted over the window ending now.
-- The index builds read the table once, online (writes go on meanwhile). ${prefix} is jobqueue.table-prefix.
CREATE TABLE ${prefix}job_rate_starts (
    type       VARCHAR(200) NOT NULL,
    job_key    VARCHAR(200) NOT NULL,
    started_at BIGINT       NOT NULL,
    job_id     BIGINT       NOT NULL,
    PRIMARY KEY (type, job_key, started_at, job_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One statement each, so no moment goes without the index it replaces.
ALTER TABLE ${prefix}jobs
    DROP INDEX ${prefix}jobs_running_idx,
    ADD INDEX ${prefix}jobs_keyed_idx (status, type, job_key, id, run_at, priority);

ALTER TABLE ${prefix}jobs
    DROP INDEX ${prefix}jobs_claim_type_idx,
    ADD INDEX ${prefix}jobs_claim_type_idx (status, type, job_key, priority DESC, run_at, id);
