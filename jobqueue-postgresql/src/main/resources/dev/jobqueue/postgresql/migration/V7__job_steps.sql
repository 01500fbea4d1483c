-- Durable steps (JobContext.step), as on SQLite (its V11): a finished step's result under its job and name, so a later
-- run of the job returns it instead of doing the step again. One row per step, written fenced on the run that did it;
-- the run and attempt say which. Goes with its job (retention, ON DELETE CASCADE). ${prefix} is jobqueue.table-prefix.
CREATE TABLE ${prefix}job_steps (
    job_id      bigint      NOT NULL REFERENCES ${prefix}jobs (id) ON DELETE CASCADE,
    name        text        NOT NULL,
    position    integer     NOT NULL,
    result      text,
    run         integer     NOT NULL,
    attempt     integer     NOT NULL,
    started_at  timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL,
    PRIMARY KEY (job_id, name)
);
