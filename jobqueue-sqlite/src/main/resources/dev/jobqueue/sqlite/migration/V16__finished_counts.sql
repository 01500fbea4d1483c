-- Finished jobs counted as they finish (issue 26): the snapshot counted finished jobs per status and type from
-- jobs_finished_idx, an index entry per finished job (a million jobs, about 0.1 s per overview). Every transaction
-- that finishes a job, retries a finished one or deletes finished jobs now adds what it changed to one row per type,
-- status and writer's shard (a few shards, which the snapshot sums). The fill counts the finished jobs already kept
-- into shard 0, in one pass over jobs_finished_idx, under the write lock (see the README's "Upgrading").
-- jobs_finished_idx stays: retention reads it to find what to delete. ${prefix} is jobqueue.table-prefix.
CREATE TABLE ${prefix}job_finished_counts (
    type   TEXT    NOT NULL,
    status TEXT    NOT NULL,
    shard  INTEGER NOT NULL,
    jobs   INTEGER NOT NULL,
    PRIMARY KEY (type, status, shard)
) WITHOUT ROWID;

INSERT INTO ${prefix}job_finished_counts (type, status, shard, jobs)
SELECT type, status, 0, count(*) FROM ${prefix}jobs INDEXED BY ${prefix}jobs_finished_idx
WHERE finished_at IS NOT NULL AND status IN ('succeeded', 'failed', 'cancelled')
GROUP BY status, type;
