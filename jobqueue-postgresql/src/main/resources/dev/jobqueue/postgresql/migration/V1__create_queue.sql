-- The queue's schema on PostgreSQL: the same tables and columns as on SQLite, in PostgreSQL's own types.
-- ${prefix} is jobqueue.table-prefix; Flyway runs this with search_path set to the queue's schema.

CREATE TABLE ${prefix}jobs (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    type             text        NOT NULL,
    status           text        NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'cancelled')),
    priority         integer     NOT NULL DEFAULT 0,
    -- JSON as the codec wrote it. Not jsonb: jsonb would rewrite the text (key order, spaces) and nothing
    -- queries inside payloads.
    payload          text        NOT NULL,
    result           text,
    dedup_key        text,
    attempts         integer     NOT NULL DEFAULT 0,   -- attempts used; snoozes and hand-backs give theirs back
    max_attempts     integer     NOT NULL,
    runs             integer     NOT NULL DEFAULT 0,   -- claims so far: the fencing token of the current run
    snoozes          integer     NOT NULL DEFAULT 0,
    run_at           timestamptz NOT NULL,             -- due time; for a retry, the end of its backoff
    created_at       timestamptz NOT NULL,
    started_at       timestamptz,                      -- claim time of the latest run
    finished_at      timestamptz,
    worker_id        text,                             -- worker of the latest run
    heartbeat_at     timestamptz,
    lease_until      timestamptz,
    repeatable       boolean     NOT NULL DEFAULT true, -- false: fail instead of running again after a lost lease
    cancel_requested boolean     NOT NULL DEFAULT false,
    error_code       text,                             -- CATEGORY:SUBCATEGORY of the latest failure
    error_detail     text,
    trace_parent     text                              -- W3C traceparent current at enqueue
)
-- Every job is inserted, updated two or three times and deleted: vacuum it after 5% of its rows changed
-- rather than 20%, so the partial indexes of pending and running jobs stay small.
WITH (autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05);

-- Claims across types: due pending jobs by priority, then due time, then id, read in index order (no sort).
CREATE INDEX ${prefix}jobs_claim_idx ON ${prefix}jobs (priority DESC, run_at, id) WHERE status = 'pending';

-- Claims of one type (per-type concurrency limits) in the same order.
CREATE INDEX ${prefix}jobs_claim_type_idx ON ${prefix}jobs (type, priority DESC, run_at, id) WHERE status = 'pending';

-- Running jobs: lease recovery, oldest running, stuck jobs, running jobs per type for global caps.
CREATE INDEX ${prefix}jobs_running_idx ON ${prefix}jobs (lease_until) WHERE status = 'running';

-- Counts by status and type (index-only), and job lists of one status (and type), newest first.
CREATE INDEX ${prefix}jobs_status_type_idx ON ${prefix}jobs (status, type, id);

-- Race-free dedup: one unfinished job per key (enqueue: INSERT ... ON CONFLICT DO NOTHING on this index).
CREATE UNIQUE INDEX ${prefix}jobs_dedup_idx ON ${prefix}jobs (dedup_key)
    WHERE dedup_key IS NOT NULL AND status IN ('pending', 'running');

-- Retention: finished jobs by status, type and age; a batch deletes from the front of one type's range.
CREATE INDEX ${prefix}jobs_finished_idx ON ${prefix}jobs (status, type, finished_at) WHERE finished_at IS NOT NULL;

-- Oldest claimable job and how many are due: pending jobs by due time.
CREATE INDEX ${prefix}jobs_due_idx ON ${prefix}jobs (run_at) WHERE status = 'pending';

-- Retry distribution (attempts used) of unfinished and failed jobs, per type.
CREATE INDEX ${prefix}jobs_unfinished_attempts_idx ON ${prefix}jobs (type, attempts)
    WHERE status IN ('pending', 'running', 'failed');

-- Top error codes per type and status, and job lists filtered by error code.
CREATE INDEX ${prefix}jobs_error_code_idx ON ${prefix}jobs (error_code, type, status) WHERE error_code IS NOT NULL;

CREATE TABLE ${prefix}job_attempts (
    job_id       bigint      NOT NULL REFERENCES ${prefix}jobs (id) ON DELETE CASCADE,
    run          integer     NOT NULL,
    attempt      integer     NOT NULL,
    worker_id    text        NOT NULL,
    started_at   timestamptz NOT NULL,
    finished_at  timestamptz,
    outcome      text,       -- SUCCEEDED, FAILED, SNOOZED, CANCELLED, HANDED_BACK, LEASE_EXPIRED; NULL while running
    error_code   text,
    error_detail text,
    PRIMARY KEY (job_id, run)
);

CREATE TABLE ${prefix}job_events (
    id      bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id  bigint      NOT NULL REFERENCES ${prefix}jobs (id) ON DELETE CASCADE,
    at      timestamptz NOT NULL,
    event   text        NOT NULL,
    actor   text,
    detail  text
);

-- A job's timeline, and the cascade when retention deletes the job.
CREATE INDEX ${prefix}job_events_job_idx ON ${prefix}job_events (job_id, id);

-- Processes that claim jobs, and the types they handle.
CREATE TABLE ${prefix}job_workers (
    worker_id    text        PRIMARY KEY,
    host         text        NOT NULL,
    pid          bigint      NOT NULL,
    types        text[]      NOT NULL,
    concurrency  integer     NOT NULL,
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL
);

-- Leases of housekeeping tasks ('retention'): one process at a time runs a task.
CREATE TABLE ${prefix}job_housekeeping (
    name        text        PRIMARY KEY,
    owner       text        NOT NULL,
    lease_until timestamptz NOT NULL      -- the epoch when released
);

-- One row per schedule name; a tick fires only in the transaction that moves next_run_at past it.
CREATE TABLE ${prefix}job_schedules (
    name          text        PRIMARY KEY,
    type          text        NOT NULL,
    expression    text        NOT NULL,   -- 'cron:<spring cron>' or 'every:<ISO-8601 duration>'
    zone          text        NOT NULL,
    misfire       text        NOT NULL CHECK (misfire IN ('once', 'skip')),
    payload       text        NOT NULL,
    next_run_at   timestamptz NOT NULL,   -- the next tick to fire
    last_tick_at  timestamptz,            -- the latest tick a job was enqueued for
    last_job_id   bigint,
    last_fired_at timestamptz,
    defined_by    text        NOT NULL,   -- scheduler whose definition the row holds
    declared_at   timestamptz NOT NULL,   -- when a live process last declared the name
    created_at    timestamptz NOT NULL,
    CHECK (last_tick_at IS NULL OR next_run_at > last_tick_at)
);

-- Types an operator paused: no claims of their jobs, their schedules wait.
CREATE TABLE ${prefix}job_paused_types (
    type      text        PRIMARY KEY,
    paused_at timestamptz NOT NULL,
    paused_by text
);
