-- The queue's schema on MySQL 8.0+ and MariaDB 10.6+: the same tables and columns as on PostgreSQL (its V1 to V5 in
-- one), InnoDB in utf8mb4 with a binary collation (types, keys and statuses compare as written, like PostgreSQL's
-- text). Instants are BIGINT epoch milliseconds, as on SQLite: no server or session time zone changes them.
-- ${prefix} is jobqueue.table-prefix; Flyway runs this in the connection's database.

CREATE TABLE ${prefix}jobs (
    id                BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    type              VARCHAR(200) NOT NULL,               -- EnqueueLimits.MAX_TYPE_LENGTH
    status            VARCHAR(16)  NOT NULL,
    priority          INT          NOT NULL DEFAULT 0,
    -- JSON as the codec wrote it. Not a JSON column: MySQL would rewrite the text (key order, spaces), MariaDB's is
    -- LONGTEXT with a check, and nothing queries inside payloads. The codec wrote it, so it is valid JSON.
    payload           LONGTEXT     NOT NULL,
    result            LONGTEXT,
    dedup_key         VARCHAR(500),                        -- EnqueueLimits.MAX_DEDUP_KEY_LENGTH
    -- The dedup key while the job is unfinished, else NULL: MySQL has no partial index, and a unique index admits
    -- any number of NULLs, so this admits one unfinished job per key.
    live_dedup_key    VARCHAR(500) AS (CASE WHEN status IN ('pending', 'running') THEN dedup_key END) STORED,
    attempts          INT          NOT NULL DEFAULT 0,     -- attempts used; snoozes and hand-backs give theirs back
    max_attempts      INT          NOT NULL,
    runs              INT          NOT NULL DEFAULT 0,     -- claims so far: the fencing token of the current run
    snoozes           INT          NOT NULL DEFAULT 0,
    run_at            BIGINT       NOT NULL,               -- due time; for a retry, the end of its backoff
    created_at        BIGINT       NOT NULL,
    started_at        BIGINT,                              -- claim time of the latest run
    finished_at       BIGINT,
    worker_id         VARCHAR(255),                        -- worker of the latest run
    heartbeat_at      BIGINT,
    lease_until       BIGINT,
    repeatable        BOOLEAN      NOT NULL DEFAULT TRUE,  -- false: fail instead of running again after a lost lease
    cancel_requested  BOOLEAN      NOT NULL DEFAULT FALSE,
    error_code        VARCHAR(500),                        -- CATEGORY:SUBCATEGORY of the latest failure
    error_detail      TEXT,
    trace_parent      TEXT,                                -- propagation headers current at enqueue
    chain_id          BIGINT,                              -- the chain's first step's id (that step: chain_id = id)
    chain_index       INT,                                 -- its step: 0 first; continuation +1; fan-out +1, join +2
    waiting_for       INT          NOT NULL DEFAULT 0,     -- unfinished dependencies while waiting, else 0
    dependency_policy VARCHAR(8),
    progress_done     BIGINT,                              -- JobContext.progress: the last value reported
    progress_total    BIGINT,
    progress_message  TEXT,
    progress_at       BIGINT,
    CONSTRAINT ${prefix}jobs_status_check
        CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'cancelled', 'waiting')),
    CONSTRAINT ${prefix}jobs_policy_check CHECK (dependency_policy IN ('cancel', 'fail', 'run'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Claims of one type in claim order (priority, then due time, then id), read in index order with the early stop of
-- LIMIT; status first, since MySQL has no partial index. (MariaDB honours DESC in an index from 10.8; before it, a
-- claim sorts the due jobs of its type.)
CREATE INDEX ${prefix}jobs_claim_type_idx ON ${prefix}jobs (status, type, priority DESC, run_at, id);

-- Running jobs by type, not by lease end (as SQLite's V10 and PostgreSQL's V6): a lease renewal, every third of the
-- lease for every running and claimed-ahead job, changes no indexed column and so writes no index entry. Lease
-- recovery, oldest running and stuck jobs read the running jobs (the workers' slots and claim-ahead) through it and
-- check each; claims count a type's running jobs from it.
CREATE INDEX ${prefix}jobs_running_idx ON ${prefix}jobs (status, type);

-- Counts by status and type (index-only), and job lists of one status (and type), newest first.
CREATE INDEX ${prefix}jobs_status_type_idx ON ${prefix}jobs (status, type, id);

-- Race-free dedup: one unfinished job per key (an insert that hits it is refused with error 1062).
CREATE UNIQUE INDEX ${prefix}jobs_dedup_idx ON ${prefix}jobs (live_dedup_key);

-- Retention: finished jobs by status, type and age; a batch deletes from the front of one type's range.
CREATE INDEX ${prefix}jobs_finished_idx ON ${prefix}jobs (status, type, finished_at);

-- Oldest claimable job and how many are due: pending jobs by due time.
CREATE INDEX ${prefix}jobs_due_idx ON ${prefix}jobs (status, run_at);

-- Retry distribution (attempts used) per type and status.
CREATE INDEX ${prefix}jobs_attempts_idx ON ${prefix}jobs (type, status, attempts);

-- Top error codes per type and status, and job lists filtered by error code.
CREATE INDEX ${prefix}jobs_error_code_idx ON ${prefix}jobs (error_code, type, status);

-- A chain's steps in order (findChain, cancelChain, retention of whole chains).
CREATE INDEX ${prefix}jobs_chain_idx ON ${prefix}jobs (chain_id, chain_index, id);

CREATE TABLE ${prefix}job_attempts (
    job_id       BIGINT       NOT NULL,
    run          INT          NOT NULL,
    attempt      INT          NOT NULL,
    worker_id    VARCHAR(255) NOT NULL,
    started_at   BIGINT       NOT NULL,
    finished_at  BIGINT,
    outcome      VARCHAR(16),  -- SUCCEEDED, FAILED, SNOOZED, CANCELLED, HANDED_BACK, LEASE_EXPIRED; NULL while running
    error_code   VARCHAR(500),
    error_detail TEXT,
    error_trace  TEXT,         -- the stack trace of a failed attempt, bounded by the worker to a few kilobytes
    PRIMARY KEY (job_id, run),
    CONSTRAINT ${prefix}job_attempts_job_fk FOREIGN KEY (job_id) REFERENCES ${prefix}jobs (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Outcomes over time (the dashboard's chart): ended attempts by outcome and end time.
CREATE INDEX ${prefix}job_attempts_outcome_idx ON ${prefix}job_attempts (outcome, finished_at, job_id, run);

CREATE TABLE ${prefix}job_events (
    id     BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    job_id BIGINT       NOT NULL,
    at     BIGINT       NOT NULL,
    event  VARCHAR(32)  NOT NULL,
    actor  VARCHAR(255),
    detail TEXT,
    CONSTRAINT ${prefix}job_events_job_fk FOREIGN KEY (job_id) REFERENCES ${prefix}jobs (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- A job's timeline, and the cascade when retention deletes the job.
CREATE INDEX ${prefix}job_events_job_idx ON ${prefix}job_events (job_id, id);

-- One row per (job waited for, waiting job); see PostgreSQL's V4. settled is true once the waiting job counted the row.
CREATE TABLE ${prefix}job_dependencies (
    depends_on BIGINT  NOT NULL,
    job_id     BIGINT  NOT NULL,
    settled    BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (depends_on, job_id),
    CONSTRAINT ${prefix}job_dependencies_on_fk FOREIGN KEY (depends_on) REFERENCES ${prefix}jobs (id) ON DELETE CASCADE,
    CONSTRAINT ${prefix}job_dependencies_job_fk FOREIGN KEY (job_id) REFERENCES ${prefix}jobs (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- What a job waits for, and the cascade when retention deletes a waiting job.
CREATE INDEX ${prefix}job_dependencies_job_idx ON ${prefix}job_dependencies (job_id, depends_on);

-- Processes that claim jobs, and the types they handle (comma-separated).
CREATE TABLE ${prefix}job_workers (
    worker_id    VARCHAR(255) NOT NULL PRIMARY KEY,
    host         VARCHAR(255) NOT NULL,
    pid          BIGINT       NOT NULL,
    types        TEXT         NOT NULL,
    concurrency  INT          NOT NULL,
    started_at   BIGINT       NOT NULL,
    heartbeat_at BIGINT       NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Leases of housekeeping tasks ('retention'): one process at a time runs a task. Claims of a type with a global
-- concurrency limit lock a row here too ('claim:<type>'), so they count its running jobs one after another.
CREATE TABLE ${prefix}job_housekeeping (
    name        VARCHAR(255) NOT NULL PRIMARY KEY,
    owner       VARCHAR(255) NOT NULL,
    lease_until BIGINT       NOT NULL   -- the epoch when released
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per schedule name; a tick fires only in the transaction that moves next_run_at past it.
CREATE TABLE ${prefix}job_schedules (
    name          VARCHAR(200) NOT NULL PRIMARY KEY,
    type          VARCHAR(200) NOT NULL,
    expression    VARCHAR(500) NOT NULL,   -- 'cron:<spring cron>' or 'every:<ISO-8601 duration>'
    zone          VARCHAR(100) NOT NULL,
    misfire       VARCHAR(8)   NOT NULL,
    payload       LONGTEXT     NOT NULL,
    next_run_at   BIGINT       NOT NULL,   -- the next tick to fire
    last_tick_at  BIGINT,                  -- the latest tick a job was enqueued for
    last_job_id   BIGINT,
    last_fired_at BIGINT,
    defined_by    VARCHAR(255) NOT NULL,   -- scheduler whose definition the row holds
    declared_at   BIGINT       NOT NULL,   -- when a live process last declared the name
    created_at    BIGINT       NOT NULL,
    CONSTRAINT ${prefix}job_schedules_misfire_check CHECK (misfire IN ('once', 'skip')),
    CONSTRAINT ${prefix}job_schedules_tick_check CHECK (last_tick_at IS NULL OR next_run_at > last_tick_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Types an operator paused: no claims of their jobs, their schedules wait.
CREATE TABLE ${prefix}job_paused_types (
    type      VARCHAR(200) NOT NULL PRIMARY KEY,
    paused_at BIGINT       NOT NULL,
    paused_by VARCHAR(255)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Durable steps (JobContext.step), as SQLite's V11 and PostgreSQL's V7: a finished step's result under its job and
-- name, written fenced on the run that did it; goes with its job (retention, ON DELETE CASCADE). The name is
-- VARCHAR(100) (JobStep's bound), so the primary key fits InnoDB's key length in utf8mb4.
CREATE TABLE ${prefix}job_steps (
    job_id      BIGINT       NOT NULL,
    name        VARCHAR(100) NOT NULL,
    position    INT          NOT NULL,
    result      LONGTEXT,
    run         INT          NOT NULL,
    attempt     INT          NOT NULL,
    started_at  BIGINT       NOT NULL,
    recorded_at BIGINT       NOT NULL,
    PRIMARY KEY (job_id, name),
    CONSTRAINT ${prefix}job_steps_job_fk FOREIGN KEY (job_id) REFERENCES ${prefix}jobs (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
