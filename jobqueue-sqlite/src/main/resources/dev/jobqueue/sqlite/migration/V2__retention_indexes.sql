-- Retention and housekeeping. ${prefix} is jobqueue.table-prefix.

-- Finished jobs by status, type and age. The cleanup walks the types of each status with one seek per type
-- and deletes each type's expired jobs in batches from the front of its range, so a batch never scans jobs
-- that are kept. Partial: pending and running jobs (finished_at NULL) churn without touching it; a query
-- with "finished_at < ?" implies the index's condition, so SQLite can use it.
CREATE INDEX ${prefix}jobs_finished_idx ON ${prefix}jobs (status, type, finished_at) WHERE finished_at IS NOT NULL;

-- Leases of housekeeping tasks ('retention'), so that of the processes sharing this file only one runs a
-- task at a time. Taken with INSERT ... ON CONFLICT DO UPDATE ... WHERE the lease expired or is ours.
CREATE TABLE ${prefix}job_housekeeping (
    name        TEXT    PRIMARY KEY,
    owner       TEXT    NOT NULL,
    lease_until INTEGER NOT NULL       -- epoch ms; 0 when released
) WITHOUT ROWID;
