-- How far a running job says it is (JobContext.progress): written with the handler's heartbeat at most every few
-- seconds, kept after the job ends (the last value reported). ${prefix} is jobqueue.table-prefix.
ALTER TABLE ${prefix}jobs ADD COLUMN progress_done INTEGER;
ALTER TABLE ${prefix}jobs ADD COLUMN progress_total INTEGER;
ALTER TABLE ${prefix}jobs ADD COLUMN progress_message TEXT;
ALTER TABLE ${prefix}jobs ADD COLUMN progress_at INTEGER;
