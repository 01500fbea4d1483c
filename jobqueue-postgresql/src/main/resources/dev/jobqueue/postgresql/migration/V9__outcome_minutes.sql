-- Runs ended per minute (issue 26): the dashboard's chart of a busy hour read an index entry of job_attempts per run
-- (a million runs). The transaction that ends runs now adds them to one row per minute and writer: minute is the
-- minute since the epoch, shard the writer's, so processes ending runs at once do not queue on one row lock (the
-- chart sums the shards). A failed run counts as failed for good when its job ended failed with that run, else as
-- retried, decided when it ends. Rows are updated in place many times a minute and keep no indexed column changing:
-- the free space of fillfactor 50 lets those updates stay on their page (heap-only, no new index entry).
-- The backfill counts the attempts already kept, as the chart read them, into shard 0 (see the README's "Upgrading").
-- Then job_attempts_outcome_idx goes: the chart was its only reader, and each run's end wrote it an entry.
-- ${prefix} is jobqueue.table-prefix.
CREATE TABLE ${prefix}job_outcome_minutes (
    minute    BIGINT NOT NULL,
    shard     INT    NOT NULL,
    succeeded BIGINT NOT NULL,
    retried   BIGINT NOT NULL,
    failed    BIGINT NOT NULL,
    PRIMARY KEY (minute, shard)
) WITH (fillfactor = 50);

INSERT INTO ${prefix}job_outcome_minutes (minute, shard, succeeded, retried, failed)
SELECT m.minute, 0,
       count(*) FILTER (WHERE m.outcome = 'SUCCEEDED'),
       count(*) FILTER (WHERE m.outcome <> 'SUCCEEDED' AND NOT m.for_good),
       count(*) FILTER (WHERE m.outcome <> 'SUCCEEDED' AND m.for_good)
FROM (
    SELECT CAST(floor(extract(epoch FROM a.finished_at) / 60) AS BIGINT) AS minute, a.outcome,
           coalesce(j.status = 'failed' AND j.runs = a.run, FALSE) AS for_good
    FROM ${prefix}job_attempts a LEFT JOIN ${prefix}jobs j ON j.id = a.job_id AND a.outcome <> 'SUCCEEDED'
    WHERE a.outcome IN ('SUCCEEDED', 'FAILED', 'LEASE_EXPIRED') AND a.finished_at IS NOT NULL
) m
GROUP BY m.minute;

DROP INDEX ${prefix}job_attempts_outcome_idx;
