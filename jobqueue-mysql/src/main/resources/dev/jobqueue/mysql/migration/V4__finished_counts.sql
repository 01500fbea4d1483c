-- Finished jobs counted as they finish (issue 26), as on SQLite (its V16) and PostgreSQL (its V12): the snapshot
-- counted finished jobs per status and type from jobs_finished_idx, an entry per finished job. Every transaction that
-- finishes a job, retries a finished one or deletes finished jobs now adds what it changed to one row per type,
-- status and writer's shard, so processes finishing jobs at once do not queue on one row lock (the snapshot sums the
-- shards). The fill counts the finished jobs already kept into shard 0, in one pass over jobs_finished_idx.
-- jobs_finished_idx stays: retention reads it to find what to delete. ${prefix} is jobqueue.table-prefix.
CREATE TABLE ${prefix}job_finished_counts (
    type   VARCHAR(200) NOT NULL,               -- EnqueueLimits.MAX_TYPE_LENGTH, as jobs.type
    status VARCHAR(16)  NOT NULL,
    shard  INT          NOT NULL,
    jobs   BIGINT       NOT NULL,
    PRIMARY KEY (type, status, shard)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

INSERT INTO ${prefix}job_finished_counts (type, status, shard, jobs)
SELECT type, status, 0, count(*) FROM ${prefix}jobs
WHERE finished_at IS NOT NULL AND status IN ('succeeded', 'failed', 'cancelled')
GROUP BY status, type;
