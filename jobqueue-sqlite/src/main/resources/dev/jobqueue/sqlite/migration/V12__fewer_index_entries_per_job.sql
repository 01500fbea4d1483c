-- Fewer index entries per job (issue 29). jobs_status_idx and jobs_status_type_idx each rewrote an entry at every
-- status change of every job (enqueue, claim, success: six entries per job). What they answered is read elsewhere:
-- counts per status come from the index each status already has (the claim index for pending jobs, the running
-- index, the finished index), and job lists by status read the table newest first, except for the statuses that
-- have few rows among many and no index of their own (failed, cancelled, waiting), which get a partial one each (on
-- status alone: each keeps its rows in id order, newest first without a sort; one per status, because SQLite uses
-- a partial index only for a query that names its condition as written).
-- Building them reads every row once, under the write lock (see the README's "Upgrading"); the start-up log says
-- so before it starts. ${prefix} is jobqueue.table-prefix.
DROP INDEX ${prefix}jobs_status_idx;
DROP INDEX ${prefix}jobs_status_type_idx;
CREATE INDEX ${prefix}jobs_failed_idx ON ${prefix}jobs (status) WHERE status = 'failed';
CREATE INDEX ${prefix}jobs_cancelled_idx ON ${prefix}jobs (status) WHERE status = 'cancelled';
CREATE INDEX ${prefix}jobs_waiting_idx ON ${prefix}jobs (status) WHERE status = 'waiting';
