-- A key on a job (issue 25), as on SQLite (its V15): the customer, tenant or account a job is for (JobRequest.key),
-- the unit flow control applies to, shown with the job and searchable. A nullable column without a default, so
-- adding it rewrites no row. jobs_key_idx lists a key's jobs newest first; it holds keyed jobs only, so a job without
-- a key writes no entry there and costs what it did before. The build reads the whole table and blocks writes to it
-- meanwhile (see the README's "Upgrading"). ${prefix} is jobqueue.table-prefix.
ALTER TABLE ${prefix}jobs ADD COLUMN job_key text;
CREATE INDEX ${prefix}jobs_key_idx ON ${prefix}jobs (job_key, id) WHERE job_key IS NOT NULL;
