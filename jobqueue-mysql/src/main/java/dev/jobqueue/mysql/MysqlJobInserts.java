package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.jdbc.Links;
import dev.jobqueue.jdbc.RowInserts;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * MySQL's inserts: a row at a time, its id the driver's generated key, the
 * {@code ENQUEUED} events in one batch after them. A job whose dedup key an unfinished
 * job holds is refused by the unique key on {@code live_dedup_key} (error 1062): InnoDB
 * rolls back that statement only, and the job yields the holder's id.
 */
final class MysqlJobInserts extends RowInserts {

	MysqlJobInserts(Tables tables, Links links) {
		super(tables, links, INSERT_JOB, INSERT_JOB_WITHOUT_DEDUP_KEY);
	}

	/** The driver's generated key, or nothing when InnoDB refused the key (1062). */
	@Override
	protected Long insertRow(SqlStatement insert, NewJob job) throws SQLException {
		try {
			return insert.bind("dedup_key", job.dedupKey()).executeInsert();
		}
		catch (SQLException ex) {
			if (job.dedupKey() == null || !MysqlDialect.INSTANCE.isUniqueViolation(ex)) {
				throw ex;
			}
			return null;
		}
	}

	@Override
	protected List<Long> insertWithoutDedupKeys(Connection connection, List<NewJob> jobs, Instant now)
			throws SQLException {
		return insertRows(connection, jobs, now, this.insertJobsWithoutDedupKeys,
				(insert, job) -> insert.executeInsert());
	}

}
