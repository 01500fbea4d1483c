-- Flow control (issue 25), as on SQLite (its V17): rate limits, limits per key, order per key, rounds across keys.
--
-- jobs_claim_type_idx now holds pending jobs without a key only (every claim statement on it says job_key IS NULL),
-- and jobs_keyed_idx holds the pending, running and failed jobs with a key, by type, status and key: the claim
-- visits a type's keys that have pending jobs (a recursive skip-scan), counts a key's running jobs, reads its pending
-- jobs in enqueue order (id; the due time in the entry is checked in the index) and sees a failed job of the key,
-- each an index range. A job without a key writes what it wrote before; a job with a key writes its pending and
-- running entries here instead of in jobs_claim_type_idx. jobs_claim_idx (every pending job) and jobs_key_idx (a
-- key's jobs of every status, newest first) stay as they are.
--
-- job_rate_starts is the log of starts of rate-limited types and keys (job_key '' for a type's own limit: keys are
-- never blank), one row per start, written by the claim that starts the job and counted over the window ending now,
-- so a limit holds in any window, not per calendar bucket. Claims delete the rows that left every window; vacuum
-- follows them early, as for jobs.
--
-- The index builds read the whole table and block writes to it meanwhile (see the README's "Upgrading").
-- ${prefix} is jobqueue.table-prefix.
CREATE TABLE ${prefix}job_rate_starts (
    type       text        NOT NULL,
    job_key    text        NOT NULL,
    started_at timestamptz NOT NULL,
    job_id     bigint      NOT NULL,
    PRIMARY KEY (type, job_key, started_at, job_id)
)
WITH (autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05);

DROP INDEX ${prefix}jobs_claim_type_idx;
CREATE INDEX ${prefix}jobs_claim_type_idx ON ${prefix}jobs (type, priority DESC, run_at, id)
    WHERE status = 'pending' AND job_key IS NULL;

CREATE INDEX ${prefix}jobs_keyed_idx ON ${prefix}jobs (type, status, job_key, id, run_at)
    WHERE job_key IS NOT NULL AND status IN ('pending', 'running', 'failed');
