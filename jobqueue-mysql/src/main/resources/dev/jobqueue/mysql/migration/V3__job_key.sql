-- A key on a job (issue 25), as on SQLite (its V15) and PostgreSQL (its V11): the customer, tenant or account a job
-- is for (JobRequest.key), the unit flow control applies to, shown with the job and searchable. VARCHAR(200) is
-- EnqueueLimits.MAX_KEY_LENGTH; the column takes the table's utf8mb4_bin, so keys compare as written. Added last and
-- nullable, the column is an instant change (no row rewritten). MySQL has no partial index: jobs_key_idx holds every
-- job, a job without a key under NULL. Its build reads the table once, online (writes go on meanwhile).
-- ${prefix} is jobqueue.table-prefix.
ALTER TABLE ${prefix}jobs ADD COLUMN job_key VARCHAR(200);
CREATE INDEX ${prefix}jobs_key_idx ON ${prefix}jobs (job_key, id);
