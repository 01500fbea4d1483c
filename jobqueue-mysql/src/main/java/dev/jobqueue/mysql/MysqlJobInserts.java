package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.jdbc.JdbcJobInserts;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Links;
import dev.jobqueue.jdbc.Tables;

/**
 * MySQL's inserts: a row at a time, its id the driver's generated key, the
 * {@code ENQUEUED} events in one batch after them. A job whose dedup key an unfinished
 * job holds is refused by the unique key on {@code live_dedup_key} (error 1062): InnoDB
 * rolls back that statement only, and the job yields the holder's id.
 */
final class MysqlJobInserts extends JdbcJobInserts {

	private final JobEvents events;

	MysqlJobInserts(Tables tables, Links links, JobEvents events) {
		super(tables, links, INSERT_JOB, INSERT_JOB_WITHOUT_DEDUP_KEY);
		this.events = events;
	}

	@Override
	protected List<Long> insertEach(Connection connection, List<NewJob> jobs, Instant now) throws SQLException {
		return insertRows(connection, jobs, now, this.insertJob, this.events, (insert, job) -> {
			try {
				return insert.bind("dedup_key", job.dedupKey()).executeInsert();
			}
			catch (SQLException ex) {
				if (job.dedupKey() == null || !MysqlDialect.INSTANCE.isUniqueViolation(ex)) {
					throw ex;
				}
				return null;
			}
		});
	}

	@Override
	protected List<Long> insertWithoutDedupKeys(Connection connection, List<NewJob> jobs, Instant now)
			throws SQLException {
		return insertRows(connection, jobs, now, this.insertJobsWithoutDedupKeys, this.events,
				(insert, job) -> insert.executeInsert());
	}

}
