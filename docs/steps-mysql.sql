-- Durable steps (JobContext.step) on MySQL/MariaDB, as on SQLite (V11) and PostgreSQL (V7): to be moved into the
-- jobqueue-mysql store's migrations as its next version. A finished step's result under its job and name, written
-- fenced on the run that did it; goes with its job (retention, ON DELETE CASCADE). ${prefix} is jobqueue.table-prefix.
-- The name is VARCHAR(100) (JobStep.MAX_NAME_LENGTH) so the primary key fits InnoDB's key length in utf8mb4.
CREATE TABLE ${prefix}job_steps (
    job_id      BIGINT       NOT NULL,
    name        VARCHAR(100) NOT NULL,
    position    INT          NOT NULL,
    result      LONGTEXT,
    run         INT          NOT NULL,
    attempt     INT          NOT NULL,
    started_at  DATETIME(6)  NOT NULL,
    recorded_at DATETIME(6)  NOT NULL,
    PRIMARY KEY (job_id, name),
    CONSTRAINT ${prefix}job_steps_job_fk FOREIGN KEY (job_id) REFERENCES ${prefix}jobs (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
