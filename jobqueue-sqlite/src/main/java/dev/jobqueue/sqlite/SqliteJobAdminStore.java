package dev.jobqueue.sqlite;

import dev.jobqueue.jdbc.ChangeNotifier;
import dev.jobqueue.jdbc.JdbcJobAdminStore;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JdbcJobAdminStore} on SQLite: other processes see cancels and retries by
 * watching the write-ahead log, so nothing is sent.
 */
public final class SqliteJobAdminStore extends JdbcJobAdminStore {

	public SqliteJobAdminStore(SqliteDatabase database, Tables tables) {
		super(database, tables, new SqliteLinks(tables, new JobEvents(tables))::settle, ChangeNotifier.NONE);
	}

}
