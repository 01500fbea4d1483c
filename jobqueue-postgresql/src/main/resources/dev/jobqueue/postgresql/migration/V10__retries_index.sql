-- Fewer index entries per job (issue 29). jobs_unfinished_attempts_idx held every pending, running and failed job
-- by its attempts: a job that ran once and succeeded wrote an entry at its claim and another at its success (an
-- update PostgreSQL cannot make HOT writes every index whose condition the new row meets). The distribution of
-- attempts asks about jobs that were retried or failed; the rest is known without it: running jobs are read through
-- jobs_running_idx (few rows), and pending jobs that never ran are the pending count less those this index holds.
-- A job that succeeds at its first run now writes no entry into it. The build reads the whole table and blocks
-- writes to it meanwhile (see the README's "Upgrading"). ${prefix} is jobqueue.table-prefix.
DROP INDEX ${prefix}jobs_unfinished_attempts_idx;
CREATE INDEX ${prefix}jobs_retries_idx ON ${prefix}jobs (type, status, attempts)
    WHERE status = 'failed' OR status = 'pending' AND attempts > 0;
