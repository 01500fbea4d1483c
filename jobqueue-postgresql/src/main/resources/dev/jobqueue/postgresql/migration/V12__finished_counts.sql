-- Finished jobs counted as they finish (issue 26), as on SQLite (its V16): the snapshot counted finished jobs per
-- status and type with an index-only scan of jobs_finished_idx, an entry per finished job (a million jobs, about
-- 0.2 s per overview). Every transaction that finishes a job, retries a finished one or deletes finished jobs now
-- adds what it changed to one row per type, status and writer's shard, so processes finishing jobs at once do not
-- queue on one row lock (the snapshot sums the shards). Rows are updated in place and keep no indexed column
-- changing: the free space of fillfactor 50 lets those updates stay on their page (heap-only, no new index entry).
-- The fill counts the finished jobs already kept into shard 0, in one pass over jobs_finished_idx; the migration's
-- transaction holds a lock that blocks writes to the new table only, and the count sees the jobs as they were when
-- it started (see the README's "Upgrading"). jobs_finished_idx stays: retention reads it to find what to delete.
-- ${prefix} is jobqueue.table-prefix.
CREATE TABLE ${prefix}job_finished_counts (
    type   text   NOT NULL,
    status text   NOT NULL,
    shard  int    NOT NULL,
    jobs   bigint NOT NULL,
    PRIMARY KEY (type, status, shard)
) WITH (fillfactor = 50);

INSERT INTO ${prefix}job_finished_counts (type, status, shard, jobs)
SELECT type, status, 0, count(*) FROM ${prefix}jobs
WHERE finished_at IS NOT NULL AND status IN ('succeeded', 'failed', 'cancelled')
GROUP BY status, type;
