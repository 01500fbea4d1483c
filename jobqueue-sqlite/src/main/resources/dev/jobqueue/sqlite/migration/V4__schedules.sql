-- Recurring schedules and paused job types. Instants are epoch milliseconds, ${prefix} is jobqueue.table-prefix.

-- One row per schedule name. The row is the schedule's definition as the most recently started process declared
-- it; every process that still declares the name fires it from this row. A tick fires only in the transaction
-- that moves next_run_at past it, and last_tick_at only grows: one job per schedule and tick, whatever the
-- number of processes or the agreement of their clocks.
CREATE TABLE ${prefix}job_schedules (
    name         TEXT    PRIMARY KEY,
    type         TEXT    NOT NULL,
    expression   TEXT    NOT NULL,   -- 'cron:<spring cron>' or 'every:<ISO-8601 duration>'
    zone         TEXT    NOT NULL,
    misfire      TEXT    NOT NULL CHECK (misfire IN ('once', 'skip')),
    payload      TEXT    NOT NULL,
    next_run_at  INTEGER NOT NULL,   -- the next tick to fire
    last_tick_at INTEGER,            -- the latest tick a job was enqueued for
    last_job_id  INTEGER,
    last_fired_at INTEGER,
    defined_by   TEXT    NOT NULL,   -- scheduler whose definition the row holds
    declared_at  INTEGER NOT NULL,   -- when a live process last declared the name
    created_at   INTEGER NOT NULL,
    CHECK (last_tick_at IS NULL OR next_run_at > last_tick_at)
) WITHOUT ROWID;

-- Types an operator paused: no claims of their jobs, their schedules wait.
CREATE TABLE ${prefix}job_paused_types (
    type      TEXT    PRIMARY KEY,
    paused_at INTEGER NOT NULL,
    paused_by TEXT
) WITHOUT ROWID;

-- Running jobs of one type, counted by claims of types with a global concurrency cap, come from
-- jobs_status_type_idx (status, type) of V1: no further index is needed.
