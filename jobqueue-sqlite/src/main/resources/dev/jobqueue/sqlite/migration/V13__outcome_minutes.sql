-- Runs ended per minute (issue 26): the dashboard's chart of a busy hour read an index entry of job_attempts per run
-- (a million runs, 0.4 s). The transaction that ends runs now adds them to one row per minute and writer: minute is
-- the minute since the epoch, shard the writer's (each process adds to its own, the chart sums them). A failed run
-- counts as failed for good when its job ended failed with that run, else as retried, decided when it ends.
-- The backfill counts the attempts already kept, as the chart read them, into shard 0: one pass over the outcome
-- index and a primary-key look-up of the job per failed run, under the write lock (see the README's "Upgrading").
-- Then job_attempts_outcome_idx goes: the chart was its only reader, and each run wrote it two entries and removed
-- one (added when the attempt starts, moved when it ends). ${prefix} is jobqueue.table-prefix.
CREATE TABLE ${prefix}job_outcome_minutes (
    minute    INTEGER NOT NULL,
    shard     INTEGER NOT NULL,
    succeeded INTEGER NOT NULL,
    retried   INTEGER NOT NULL,
    failed    INTEGER NOT NULL,
    PRIMARY KEY (minute, shard)
) WITHOUT ROWID;

INSERT INTO ${prefix}job_outcome_minutes (minute, shard, succeeded, retried, failed)
SELECT a.finished_at / 60000, 0,
       sum(a.outcome = 'SUCCEEDED'),
       sum(a.outcome <> 'SUCCEEDED' AND NOT coalesce(j.status = 'failed' AND j.runs = a.run, 0)),
       sum(a.outcome <> 'SUCCEEDED' AND coalesce(j.status = 'failed' AND j.runs = a.run, 0))
FROM ${prefix}job_attempts a INDEXED BY ${prefix}job_attempts_outcome_idx
LEFT JOIN ${prefix}jobs j ON j.id = a.job_id AND a.outcome <> 'SUCCEEDED'
WHERE a.outcome IN ('SUCCEEDED', 'FAILED', 'LEASE_EXPIRED') AND a.finished_at IS NOT NULL
GROUP BY a.finished_at / 60000;

DROP INDEX ${prefix}job_attempts_outcome_idx;
