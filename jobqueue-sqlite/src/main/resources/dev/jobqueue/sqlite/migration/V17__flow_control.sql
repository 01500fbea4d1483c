-- Flow control (issue 25): rate limits, limits per key, order per key, rounds across keys.
--
-- The claim indexes of pending jobs now hold jobs without a key only, and jobs_keyed_idx holds the pending, running
-- and failed jobs with a key, by type, status and key: the claim visits a type's keys that have pending jobs (a
-- skip-scan), counts a key's running jobs, reads its pending jobs in enqueue order (id; the due time in the entry
-- lets it skip jobs not due without reading the row) and sees a failed job of the key, each an index range. A job
-- without a key writes what it wrote before; a job with a key writes entries here instead of in the claim indexes.
-- jobs_key_idx (V15) stays: it lists a key's jobs of every status, newest first.
--
-- job_rate_starts is the log of starts of rate-limited types and keys (job_key '' for a type's own limit: keys are
-- never blank), one row per start, written by the claim that starts the job: a claim counts the rows of the window
-- ending now, so the limit holds in any window, not per calendar bucket. Rows that left every window are deleted by
-- the claims.
--
-- Rebuilding the two claim indexes and building jobs_keyed_idx read every row once, under the write lock (see the
-- README's "Upgrading"). ${prefix} is jobqueue.table-prefix.
CREATE TABLE ${prefix}job_rate_starts (
    type       TEXT    NOT NULL,
    job_key    TEXT    NOT NULL,
    started_at INTEGER NOT NULL,
    job_id     INTEGER NOT NULL,
    PRIMARY KEY (type, job_key, started_at, job_id)
) WITHOUT ROWID;

DROP INDEX ${prefix}jobs_claim_idx;
CREATE INDEX ${prefix}jobs_claim_idx ON ${prefix}jobs (priority DESC, run_at, id)
    WHERE status = 'pending' AND job_key IS NULL;

DROP INDEX ${prefix}jobs_claim_type_idx;
CREATE INDEX ${prefix}jobs_claim_type_idx ON ${prefix}jobs (type, priority DESC, run_at, id)
    WHERE status = 'pending' AND job_key IS NULL;

CREATE INDEX ${prefix}jobs_keyed_idx ON ${prefix}jobs (type, status, job_key, id, run_at)
    WHERE job_key IS NOT NULL AND status IN ('pending', 'running', 'failed');
