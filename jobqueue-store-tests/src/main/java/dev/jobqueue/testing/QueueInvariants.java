package dev.jobqueue.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What must hold in a queue database whatever happened to the processes writing it, on
 * any store: plain SQL over the queue's tables (their names and columns are the same on
 * every store), read on a connection of the caller's own (never through a faulty or
 * pooled DataSource under test).
 *
 * <ul>
 * <li>every claim wrote an attempt row and a CLAIMED event ({@code runs} = attempt rows =
 * CLAIMED events);</li>
 * <li>an attempt without outcome is the current run of a running job, and a running job
 * has one;</li>
 * <li>no job has two succeeded attempts, and a succeeded job's last attempt
 * succeeded;</li>
 * <li>{@code attempts} = attempt rows that count (not snoozed, not handed back), unless
 * the job was retried by hand;</li>
 * <li>every job has one ENQUEUED event; finished jobs have a finish time and no lease,
 * running jobs a lease;</li>
 * <li>a waiting job's count of unfinished dependencies is positive and matches its
 * unsettled dependency rows, a finished job's rows are settled, and no chain has two
 * steps at one index (docs/chains.md);</li>
 * <li>the kept counts of finished jobs per type and status (summed over their shards)
 * equal the finished jobs of the table.</li>
 * </ul>
 */
public final class QueueInvariants {

	// Each check reads a job's rows through their job_id keys. A per-job count that
	// names an indexed column beside job_id (a.outcome = 'SUCCEEDED') may make SQLite
	// walk that column's index instead, once per job: 15 minutes on a 100,000-job
	// file. So such counts are sums over the job's own rows.

	private static final String[][] CHECKS = { { "job whose runs differ from its attempt rows", """
			SELECT j.id, j.runs, (SELECT count(*) FROM %1$sjob_attempts a WHERE a.job_id = j.id)
			FROM %1$sjobs j WHERE j.runs != (SELECT count(*) FROM %1$sjob_attempts a WHERE a.job_id = j.id)
			""" }, { "job whose CLAIMED events differ from its attempt rows", """
			SELECT j.id, (SELECT count(*) FROM %1$sjob_events e WHERE e.job_id = j.id AND e.event = 'CLAIMED'),
			       (SELECT count(*) FROM %1$sjob_attempts a WHERE a.job_id = j.id)
			FROM %1$sjobs j
			WHERE (SELECT count(*) FROM %1$sjob_events e WHERE e.job_id = j.id AND e.event = 'CLAIMED')
			   != (SELECT count(*) FROM %1$sjob_attempts a WHERE a.job_id = j.id)
			""" }, { "running job without an open attempt row for its current run", """
			SELECT j.id, j.runs, NULL FROM %1$sjobs j WHERE j.status = 'running' AND NOT EXISTS (
			    SELECT 1 FROM %1$sjob_attempts a WHERE a.job_id = j.id AND a.run = j.runs AND a.outcome IS NULL)
			""" }, { "attempt without outcome that is not the current run of a running job", """
			SELECT a.job_id, a.run, j.status FROM %1$sjob_attempts a JOIN %1$sjobs j ON j.id = a.job_id
			WHERE a.outcome IS NULL AND (j.status != 'running' OR a.run != j.runs)
			""" }, { "job with more than one succeeded attempt", """
			SELECT job_id, count(*), NULL FROM %1$sjob_attempts WHERE outcome = 'SUCCEEDED'
			GROUP BY job_id HAVING count(*) > 1
			""" }, { "succeeded job whose last attempt did not succeed", """
			SELECT j.id, j.runs, NULL FROM %1$sjobs j WHERE j.status = 'succeeded' AND NOT EXISTS (
			    SELECT 1 FROM %1$sjob_attempts a WHERE a.job_id = j.id AND a.run = j.runs AND a.outcome = 'SUCCEEDED')
			""" },
			{ "job whose SUCCEEDED events differ from its succeeded attempts",
					"""
							SELECT j.id, NULL, NULL FROM %1$sjobs j
							WHERE (SELECT count(*) FROM %1$sjob_events e WHERE e.job_id = j.id AND e.event = 'SUCCEEDED')
							   != (SELECT coalesce(sum(CASE WHEN a.outcome = 'SUCCEEDED' THEN 1 ELSE 0 END), 0) FROM %1$sjob_attempts a WHERE a.job_id = j.id)
							""" },
			{ "job whose attempts differ from its counted attempt rows", """
					SELECT j.id, j.attempts, (SELECT count(*) FROM %1$sjob_attempts a WHERE a.job_id = j.id
					        AND coalesce(a.outcome, '') NOT IN ('SNOOZED', 'HANDED_BACK'))
					FROM %1$sjobs j
					WHERE j.attempts != (SELECT count(*) FROM %1$sjob_attempts a WHERE a.job_id = j.id
					        AND coalesce(a.outcome, '') NOT IN ('SNOOZED', 'HANDED_BACK'))
					  AND NOT EXISTS (SELECT 1 FROM %1$sjob_events e WHERE e.job_id = j.id AND e.event = 'RETRIED')
					""" },
			{ "job without exactly one ENQUEUED event",
					"""
							SELECT j.id, (SELECT count(*) FROM %1$sjob_events e WHERE e.job_id = j.id AND e.event = 'ENQUEUED'), NULL
							FROM %1$sjobs j
							WHERE (SELECT count(*) FROM %1$sjob_events e WHERE e.job_id = j.id AND e.event = 'ENQUEUED') != 1
							""" },
			{ "finished job without finish time or with a lease",
					"""
							SELECT id, status, lease_until FROM %1$sjobs
							WHERE status IN ('succeeded', 'failed', 'cancelled') AND (finished_at IS NULL OR lease_until IS NOT NULL)
							""" },
			{ "running job without lease or worker", """
					SELECT id, worker_id, lease_until FROM %1$sjobs
					WHERE status = 'running' AND (lease_until IS NULL OR worker_id IS NULL)
					""" }, { "pending job holding a lease", """
					SELECT id, lease_until, NULL FROM %1$sjobs WHERE status = 'pending' AND lease_until IS NOT NULL
					""" }, { "waiting job whose count differs from its unsettled dependency rows", """
					SELECT j.id, j.waiting_for, (SELECT count(*) FROM %1$sjob_dependencies d
					        WHERE d.job_id = j.id AND NOT d.settled)
					FROM %1$sjobs j WHERE j.status = 'waiting' AND (j.waiting_for <= 0
					    OR j.waiting_for != (SELECT count(*) FROM %1$sjob_dependencies d
					        WHERE d.job_id = j.id AND NOT d.settled))
					""" },
			{ "dependency row left unsettled although its job finished",
					"""
							SELECT d.depends_on, d.job_id, x.status FROM %1$sjob_dependencies d JOIN %1$sjobs x ON x.id = d.depends_on
							WHERE NOT d.settled AND x.status IN ('succeeded', 'failed', 'cancelled')
							""" },
			{ "chain with two steps at one index", """
					SELECT chain_id, chain_index, count(*) FROM %1$sjobs j WHERE chain_id IS NOT NULL
					  AND NOT EXISTS (SELECT 1 FROM %1$sjob_dependencies d WHERE d.job_id = j.id)
					  AND NOT EXISTS (SELECT 1 FROM %1$sjob_dependencies d WHERE d.depends_on = j.id)
					GROUP BY chain_id, chain_index HAVING count(*) > 1
					""" }, { "events or attempts of a job that does not exist", """
					SELECT job_id, NULL, NULL FROM %1$sjob_events WHERE job_id NOT IN (SELECT id FROM %1$sjobs)
					UNION ALL
					SELECT job_id, NULL, NULL FROM %1$sjob_attempts WHERE job_id NOT IN (SELECT id FROM %1$sjobs)
					""" },
			{ "type and status whose kept count of finished jobs differs from the table (kept - counted)", """
					SELECT type, status, sum(kept) - sum(counted) FROM (
					    SELECT type, status, jobs AS kept, 0 AS counted FROM %1$sjob_finished_counts
					    UNION ALL
					    SELECT type, status, 0, count(*) FROM %1$sjobs
					    WHERE status IN ('succeeded', 'failed', 'cancelled') GROUP BY type, status
					) c
					GROUP BY type, status HAVING sum(kept) <> sum(counted)
					""" } };

	private QueueInvariants() {
	}

	/**
	 * The violations in the queue tables of {@code prefix} (schema-qualified where the
	 * store uses a schema), each as one line naming the rule and the first rows that
	 * break it; empty when all hold.
	 */
	public static List<String> violations(Connection connection, String prefix) {
		List<String> violations = new ArrayList<>();
		try (Statement statement = connection.createStatement()) {
			for (String[] check : CHECKS) {
				List<String> rows = new ArrayList<>();
				int count = 0;
				try (ResultSet result = statement.executeQuery(check[1].formatted(prefix))) {
					while (result.next()) {
						count++;
						if (rows.size() < 5) {
							rows.add("(" + result.getObject(1) + ", " + result.getObject(2) + ", " + result.getObject(3)
									+ ")");
						}
					}
				}
				if (count > 0) {
					violations.add(count + " " + check[0] + ": " + String.join(" ", rows));
				}
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not check the queue's invariants: " + ex.getMessage(), ex);
		}
		return violations;
	}

}
