-- Runs ended per minute (issue 26): the dashboard's chart of a busy hour read an index entry of job_attempts per run.
-- The transaction that ends runs now adds them to one row per minute and writer: minute is the minute since the
-- epoch, shard the writer's, so processes ending runs at once do not queue on one row lock (the chart sums the
-- shards). A failed run counts as failed for good when its job ended failed with that run, else as retried, decided
-- when it ends. The backfill counts the attempts already kept, as the chart read them, into shard 0. Then
-- job_attempts_outcome_idx goes: the chart was its only reader, and each run wrote it entries.
-- ${prefix} is jobqueue.table-prefix.
CREATE TABLE ${prefix}job_outcome_minutes (
    minute    BIGINT NOT NULL,
    shard     INT    NOT NULL,
    succeeded BIGINT NOT NULL,
    retried   BIGINT NOT NULL,
    failed    BIGINT NOT NULL,
    PRIMARY KEY (minute, shard)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

INSERT INTO ${prefix}job_outcome_minutes (minute, shard, succeeded, retried, failed)
SELECT a.finished_at DIV 60000, 0,
       sum(a.outcome = 'SUCCEEDED'),
       sum(a.outcome <> 'SUCCEEDED' AND NOT coalesce(j.status = 'failed' AND j.runs = a.run, FALSE)),
       sum(a.outcome <> 'SUCCEEDED' AND coalesce(j.status = 'failed' AND j.runs = a.run, FALSE))
FROM ${prefix}job_attempts a LEFT JOIN ${prefix}jobs j ON j.id = a.job_id AND a.outcome <> 'SUCCEEDED'
WHERE a.outcome IN ('SUCCEEDED', 'FAILED', 'LEASE_EXPIRED') AND a.finished_at IS NOT NULL
GROUP BY a.finished_at DIV 60000;

DROP INDEX ${prefix}job_attempts_outcome_idx ON ${prefix}job_attempts;
