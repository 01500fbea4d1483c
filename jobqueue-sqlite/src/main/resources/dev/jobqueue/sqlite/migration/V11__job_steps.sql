-- Durable steps (JobContext.step): a finished step's result under its job and name, so a later run of the job returns
-- it instead of doing the step again. One row per step, written fenced on the run that did it; the run and attempt say
-- which. Goes with its job (retention, ON DELETE CASCADE). ${prefix} is jobqueue.table-prefix.
CREATE TABLE ${prefix}job_steps (
    job_id      INTEGER NOT NULL REFERENCES ${prefix}jobs (id) ON DELETE CASCADE,
    name        TEXT    NOT NULL,
    position    INTEGER NOT NULL,
    result      TEXT,
    run         INTEGER NOT NULL,
    attempt     INTEGER NOT NULL,
    started_at  INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (job_id, name)
);
