-- Outcomes over time (the dashboard's chart of succeeded, failed and retried jobs per minute): ended attempts by
-- outcome and end time, so a chart of the last hour or day reads one index range per outcome, not the table.
-- ${prefix} is jobqueue.table-prefix.
CREATE INDEX ${prefix}job_attempts_outcome_idx ON ${prefix}job_attempts (outcome, finished_at)
    INCLUDE (job_id, run) WHERE outcome IS NOT NULL;
