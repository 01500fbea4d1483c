-- A key on a job (issue 25): the customer, tenant or account a job is for (JobRequest.key), the unit flow control
-- applies to, shown with the job and searchable. A nullable column without a default: adding it rewrites no row.
-- jobs_key_idx lists a key's jobs newest first; it holds keyed jobs only, so a job without a key writes no entry
-- there and costs what it did before. Building it reads every row once, under the write lock (see the README's
-- "Upgrading"). ${prefix} is jobqueue.table-prefix.
ALTER TABLE ${prefix}jobs ADD COLUMN job_key TEXT;
CREATE INDEX ${prefix}jobs_key_idx ON ${prefix}jobs (job_key, id) WHERE job_key IS NOT NULL;
