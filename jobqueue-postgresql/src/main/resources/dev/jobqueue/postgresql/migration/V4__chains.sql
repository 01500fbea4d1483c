-- Chains and dependencies (docs/chains.md). Every added column is nullable or has a constant default, so adding
-- them rewrites no row; existing jobs are in no chain and wait for nothing. ${prefix} is jobqueue.table-prefix.
ALTER TABLE ${prefix}jobs
    ADD COLUMN chain_id          bigint,                       -- the chain's first step's id (that step: chain_id = id)
    ADD COLUMN chain_index       integer,                      -- its step: 0 first; continuation +1; fan-out +1, join +2
    ADD COLUMN waiting_for       integer NOT NULL DEFAULT 0,   -- unfinished dependencies while waiting, else 0
    ADD COLUMN dependency_policy text CHECK (dependency_policy IN ('cancel', 'fail', 'run'));

-- 'waiting' joins the statuses. V1 declared the check on the column, so PostgreSQL named it; it is looked up by its
-- definition rather than its generated name.
DO $$
DECLARE
    status_check name;
BEGIN
    SELECT c.conname INTO status_check FROM pg_constraint c
    WHERE c.conrelid = '${prefix}jobs'::regclass AND c.contype = 'c'
      AND pg_get_constraintdef(c.oid) LIKE '%status%''cancelled''%';
    IF status_check IS NULL THEN
        RAISE EXCEPTION 'The status check of table ${prefix}jobs is not the one V1 created; compare it with V1__create_queue.sql';
    END IF;
    EXECUTE format('ALTER TABLE ${prefix}jobs DROP CONSTRAINT %I', status_check);
END
$$;
-- Every stored status passed the narrower check, so the wider one needs no scan of the table to hold (NOT VALID
-- still checks every row written from now on).
ALTER TABLE ${prefix}jobs ADD CONSTRAINT ${prefix}jobs_status_check
    CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'cancelled', 'waiting')) NOT VALID;

-- One row per (job waited for, waiting job). Finishing a job finds its dependents through the primary key, so a
-- fan-in of any width costs one index probe and one row update per finished child. The rows stay after the
-- dependency finished ("waits for" in the endpoint) and go with the jobs. settled is true once the waiting job
-- counted the row (at enqueue, or when the dependency finished): a dependency retried after it finished, that
-- finishes again, is not counted twice.
CREATE TABLE ${prefix}job_dependencies (
    depends_on bigint NOT NULL REFERENCES ${prefix}jobs (id) ON DELETE CASCADE,
    job_id     bigint NOT NULL REFERENCES ${prefix}jobs (id) ON DELETE CASCADE,
    settled    boolean NOT NULL DEFAULT false,
    PRIMARY KEY (depends_on, job_id)
);

-- What a job waits for, and the cascade when retention deletes a waiting job.
CREATE INDEX ${prefix}job_dependencies_job_idx ON ${prefix}job_dependencies (job_id, depends_on);

-- A chain's steps in order (findChain, cancelChain, retention of whole chains).
CREATE INDEX ${prefix}jobs_chain_idx ON ${prefix}jobs (chain_id, chain_index, id) WHERE chain_id IS NOT NULL;
