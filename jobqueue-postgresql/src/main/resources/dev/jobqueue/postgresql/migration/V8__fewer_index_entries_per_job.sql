-- Fewer index entries and checks per job (issue 29). A job's lifecycle (enqueue, claim, success) wrote 22 index
-- entries; this takes out the ones no question needs on every status change:
--  - jobs_status_type_idx took an entry at each of the three status changes. Running jobs are read through
--    jobs_running_idx, pending ones through the claim indexes, finished ones through jobs_finished_idx; only the
--    statuses with few rows and no index of their own (failed, cancelled, waiting) keep one, listed newest first.
--  - job_events had two indexes, its identity and (job_id, id); the pair is now the primary key, one entry per event.
--  - job_attempts and job_events lose their foreign keys to jobs: each attempt and event row paid a probe of the
--    jobs' primary key and a row lock of its job. The store deletes them with their job, in the same statement.
-- The index builds read the whole table and block writes to it meanwhile (see the README's "Upgrading"); the
-- start-up log says so before they start. ${prefix} is jobqueue.table-prefix.
DO $$
DECLARE
    constraint_row record;
BEGIN
    FOR constraint_row IN
        SELECT c.conname, c.conrelid::regclass AS table_name FROM pg_constraint c
        WHERE c.contype = 'f' AND c.confrelid = '${prefix}jobs'::regclass
          AND c.conrelid IN ('${prefix}job_attempts'::regclass, '${prefix}job_events'::regclass)
    LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', constraint_row.table_name, constraint_row.conname);
    END LOOP;
    FOR constraint_row IN
        SELECT c.conname FROM pg_constraint c WHERE c.contype = 'p' AND c.conrelid = '${prefix}job_events'::regclass
    LOOP
        EXECUTE format('ALTER TABLE ${prefix}job_events DROP CONSTRAINT %I', constraint_row.conname);
    END LOOP;
END
$$;

ALTER TABLE ${prefix}job_events ADD CONSTRAINT ${prefix}job_events_pkey PRIMARY KEY (job_id, id);
DROP INDEX ${prefix}job_events_job_idx;

DROP INDEX ${prefix}jobs_status_type_idx;
CREATE INDEX ${prefix}jobs_failed_cancelled_waiting_idx ON ${prefix}jobs (status, type, id)
    WHERE status IN ('failed', 'cancelled', 'waiting');
