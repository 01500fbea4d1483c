package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.jobqueue.core.store.QueueSnapshot.StorageState;
import dev.jobqueue.jdbc.JdbcQueueInsights;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.StorageFacts;
import dev.jobqueue.jdbc.Tables;

/**
 * {@link JdbcQueueInsights} on MySQL: a snapshot runs in one repeatable-read, read-only
 * transaction; the storage is the queue's tables as InnoDB counts them, and the server's
 * connections.
 */
public final class MysqlQueueInsights extends JdbcQueueInsights {

	public MysqlQueueInsights(MysqlDatabase database, Tables tables) {
		super(database, tables, new ServerFacts(database, tables));
	}

	/**
	 * The queue's tables and indexes in the shape the endpoint shows for any store: their
	 * total size as the database size, in InnoDB's 16 kB pages, their free space as free
	 * pages. Per table sizes and row estimates go to the details.
	 */
	private record ServerFacts(MysqlDatabase database, Tables tables) implements StorageFacts {

		private static final int PAGE_SIZE = 16384;

		@Override
		public StorageState state(Connection connection) throws SQLException {
			Map<String, Object> relations = new LinkedHashMap<>();
			long bytes = 0;
			long free = 0;
			try (SqlStatement select = this.tables.sql(MysqlRetentionStore.SIZES).prepare(connection)) {
				select.bindTexts("tables", this.tables.names());
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						bytes += rows.getLong(2) + rows.getLong(3);
						free += rows.getLong(5);
						relations.put(rows.getString(1), Map.of("bytes", rows.getLong(2), "indexBytes", rows.getLong(3),
								"estimatedRows", rows.getLong(4), "freeBytes", rows.getLong(5)));
					}
				}
			}
			return new StorageState("mysql", this.database.location(), bytes, 0, PAGE_SIZE, bytes / PAGE_SIZE,
					free / PAGE_SIZE, this.database.retries(), Map.of("tables", relations));
		}

		/**
		 * On for a replica and for {@code read_only}: found without writing or locking.
		 */
		@Override
		public String writeRefusal(Connection connection) throws SQLException {
			try (Statement statement = connection.createStatement();
					ResultSet rows = statement.executeQuery("SELECT @@global.read_only")) {
				if (rows.next() && rows.getInt(1) != 0) {
					return "the server is read-only (a replica, or read_only is on). Point the queue at the primary, "
							+ "or turn read_only off.";
				}
			}
			return null;
		}

	}

}
