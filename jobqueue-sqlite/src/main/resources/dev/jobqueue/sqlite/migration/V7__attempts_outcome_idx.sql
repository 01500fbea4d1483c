-- Outcomes over time (the dashboard's chart of succeeded, failed and retried jobs per minute): ended attempts by
-- outcome and end time, so a chart of the last hour or day reads one index range per outcome, not the table.
-- job_attempts is WITHOUT ROWID: each index entry also holds (job_id, run), enough to tell a failure for good from
-- one that was retried with one primary-key look-up of the job. Running attempts (outcome NULL) sort first.
CREATE INDEX ${prefix}job_attempts_outcome_idx ON ${prefix}job_attempts (outcome, finished_at);
