-- The queue's schema. Instants are epoch milliseconds (INTEGER). ${prefix} is jobqueue.table-prefix.

CREATE TABLE ${prefix}jobs (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    type             TEXT    NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'cancelled')),
    priority         INTEGER NOT NULL DEFAULT 0,
    payload          TEXT    NOT NULL,
    result           TEXT,
    dedup_key        TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,   -- attempts used; snoozes and hand-backs give theirs back
    max_attempts     INTEGER NOT NULL,
    runs             INTEGER NOT NULL DEFAULT 0,   -- claims so far: the fencing token of the current run
    snoozes          INTEGER NOT NULL DEFAULT 0,
    run_at           INTEGER NOT NULL,             -- due time; for a retry, the end of its backoff
    created_at       INTEGER NOT NULL,
    started_at       INTEGER,                      -- claim time of the latest run
    finished_at      INTEGER,
    worker_id        TEXT,                         -- worker of the latest run
    heartbeat_at     INTEGER,
    lease_until      INTEGER,
    repeatable       INTEGER NOT NULL DEFAULT 1,   -- 0: fail instead of running again after a lost lease
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    error_code       TEXT,                         -- CATEGORY:SUBCATEGORY of the latest failure
    error_detail     TEXT,
    trace_parent     TEXT                          -- W3C traceparent current at enqueue
);

-- Claims across types: due pending jobs by priority, then due time, then id (no sort step).
CREATE INDEX ${prefix}jobs_claim_idx ON ${prefix}jobs (priority DESC, run_at, id) WHERE status = 'pending';

-- Claims of one type (per-type concurrency limits) in the same order.
CREATE INDEX ${prefix}jobs_claim_type_idx ON ${prefix}jobs (type, priority DESC, run_at, id) WHERE status = 'pending';

-- Running jobs: lease recovery, oldest running, running per type.
CREATE INDEX ${prefix}jobs_running_idx ON ${prefix}jobs (lease_until) WHERE status = 'running';

-- Counts by status and type, answered from the index alone.
CREATE INDEX ${prefix}jobs_status_type_idx ON ${prefix}jobs (status, type);

-- Race-free dedup: one unfinished job per key.
CREATE UNIQUE INDEX ${prefix}jobs_dedup_idx ON ${prefix}jobs (dedup_key)
    WHERE dedup_key IS NOT NULL AND status IN ('pending', 'running');

CREATE TABLE ${prefix}job_attempts (
    job_id       INTEGER NOT NULL REFERENCES ${prefix}jobs (id) ON DELETE CASCADE,
    run          INTEGER NOT NULL,
    attempt      INTEGER NOT NULL,
    worker_id    TEXT    NOT NULL,
    started_at   INTEGER NOT NULL,
    finished_at  INTEGER,
    outcome      TEXT,          -- SUCCEEDED, FAILED, SNOOZED, CANCELLED, HANDED_BACK, LEASE_EXPIRED; NULL while running
    error_code   TEXT,
    error_detail TEXT,
    PRIMARY KEY (job_id, run)
) WITHOUT ROWID;

CREATE TABLE ${prefix}job_events (
    id      INTEGER PRIMARY KEY,
    job_id  INTEGER NOT NULL REFERENCES ${prefix}jobs (id) ON DELETE CASCADE,
    at      INTEGER NOT NULL,
    event   TEXT    NOT NULL,
    actor   TEXT,
    detail  TEXT
);

CREATE INDEX ${prefix}job_events_job_idx ON ${prefix}job_events (job_id, id);

-- Processes that claim jobs, and the types they handle.
CREATE TABLE ${prefix}job_workers (
    worker_id    TEXT    PRIMARY KEY,
    host         TEXT    NOT NULL,
    pid          INTEGER NOT NULL,
    types        TEXT    NOT NULL,
    concurrency  INTEGER NOT NULL,
    started_at   INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL
) WITHOUT ROWID;
