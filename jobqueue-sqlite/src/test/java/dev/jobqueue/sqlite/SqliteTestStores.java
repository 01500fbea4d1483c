package dev.jobqueue.sqlite;

import dev.jobqueue.core.store.ScheduleStore;
import dev.jobqueue.jdbc.JdbcScheduleStore;

/**
 * Store parts on a test's own {@link SqliteJobStore}, wired as {@link SqliteStorage}
 * wires them.
 */
public final class SqliteTestStores {

	private SqliteTestStores() {
	}

	/** The schedules, their jobs inserted by {@code jobs}. */
	public static ScheduleStore schedules(SqliteJobStore jobs) {
		return new JdbcScheduleStore(jobs.database(), jobs.tables(), jobs::insertJobs);
	}

}
