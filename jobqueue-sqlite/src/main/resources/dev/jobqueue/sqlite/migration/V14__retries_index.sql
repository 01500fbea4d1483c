-- Fewer index entries per job (issue 29). jobs_unfinished_attempts_idx held every pending, running and failed job
-- by its attempts: a job that ran once and succeeded took two entries and gave two back (the claim changes its
-- attempts, the success its status). The distribution of attempts asks about jobs that were retried or failed;
-- the rest is known without it: running jobs are read through jobs_running_idx (few rows), and pending jobs that
-- never ran are the pending count less those this index holds. A job that succeeds at its first run now touches
-- no entry of it. Building it reads every row once, under the write lock (see the README's "Upgrading").
-- ${prefix} is jobqueue.table-prefix.
DROP INDEX ${prefix}jobs_unfinished_attempts_idx;
CREATE INDEX ${prefix}jobs_retries_idx ON ${prefix}jobs (type, status, attempts)
    WHERE status = 'failed' OR status = 'pending' AND attempts > 0;
