-- Running jobs indexed by type instead of by lease end, as on SQLite (its V10). A lease renewal (every third of
-- the lease, for every running and claimed-ahead job) changes lease_until and heartbeat_at only: with neither in
-- an index, and room left on the row's page (fillfactor), PostgreSQL makes the renewal a HOT update that writes no
-- index entry at all. Lease recovery reads the running jobs (at most the workers' slots plus their claim-ahead)
-- through this index and checks the lease end on each; claims count running jobs per type from it.
-- CREATE INDEX reads the whole table and blocks writes to it meanwhile: 0.24 s per million jobs on a 2-core machine;
-- the start-up log says so before it starts.
-- The fillfactor applies to pages written from now on; existing pages keep theirs until rewritten. The first renewal
-- of jobs written side by side may move the ones that find no room on their page; later renewals stay (HOT).
-- ${prefix} is jobqueue.table-prefix.
DROP INDEX ${prefix}jobs_running_idx;
CREATE INDEX ${prefix}jobs_running_idx ON ${prefix}jobs (type) WHERE status = 'running';
ALTER TABLE ${prefix}jobs SET (fillfactor = 70);
