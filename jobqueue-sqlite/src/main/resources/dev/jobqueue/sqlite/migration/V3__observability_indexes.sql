-- Indexes for the operations queries (actuator endpoint, health indicator, meters), so that a snapshot reads
-- index ranges instead of the table however many finished jobs it holds. Most are partial: they hold only
-- the few rows an operator asks about (pending, running, failed), not the succeeded bulk.

-- Oldest claimable job and how many are due: pending jobs by due time (backoff included in run_at).
CREATE INDEX ${prefix}jobs_due_idx ON ${prefix}jobs (run_at) WHERE status = 'pending';

-- Oldest running jobs and stuck jobs need no index of their own: running jobs are few (at most the workers'
-- slots), and V1's jobs_running_idx holds exactly them. Every index on running rows costs a write per claim,
-- per completion and (for heartbeat_at) per lease renewal.

-- Retry distribution (attempts used) of unfinished and failed jobs, per type, answered from the index alone.
CREATE INDEX ${prefix}jobs_unfinished_attempts_idx ON ${prefix}jobs (type, attempts)
    WHERE status IN ('pending', 'running', 'failed');

-- Top-N error codes per type and status, and job lists filtered by error code.
CREATE INDEX ${prefix}jobs_error_code_idx ON ${prefix}jobs (error_code, type, status) WHERE error_code IS NOT NULL;

-- Job lists by status, newest first (an index on status alone keeps its rows in id order).
CREATE INDEX ${prefix}jobs_status_idx ON ${prefix}jobs (status);
