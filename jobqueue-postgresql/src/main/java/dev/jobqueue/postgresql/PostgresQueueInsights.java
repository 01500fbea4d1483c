package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.jobqueue.core.store.QueueSnapshot.StorageState;
import dev.jobqueue.jdbc.InsightStatements;
import dev.jobqueue.jdbc.JdbcQueueInsights;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.StorageFacts;
import dev.jobqueue.jdbc.Tables;

/**
 * {@link JdbcQueueInsights} on PostgreSQL: a snapshot runs in one repeatable-read,
 * read-only transaction; the storage is the queue's relations and the database's
 * sessions. The plans of the statements on a table of a million finished jobs are written
 * down in {@code docs/postgresql.md}.
 */
public final class PostgresQueueInsights extends JdbcQueueInsights {

	/** The statements as PostgreSQL runs them, for tests of their plans. */
	static final InsightStatements STATEMENTS = new InsightStatements(PostgresDialect.INSTANCE);

	public PostgresQueueInsights(PostgresDatabase database, Tables tables) {
		super(database, tables, new ServerFacts(database, tables));
	}

	/**
	 * The queue's tables and indexes in the shape the endpoint shows for any store: their
	 * total size as the database size, in 8 kB pages; no log or free list of the queue's
	 * own. Per table sizes, dead rows and the database's connections go to the details.
	 */
	private record ServerFacts(PostgresDatabase database, Tables tables) implements StorageFacts {

		/**
		 * The queue's tables: their sizes and rows, live and dead (what autovacuum has
		 * yet to reclaim).
		 */
		private static final String TABLE_STATS = """
				SELECT c.relname, pg_table_size(c.oid), pg_indexes_size(c.oid), coalesce(s.n_live_tup, 0),
					coalesce(s.n_dead_tup, 0), greatest(s.last_vacuum, s.last_autovacuum)
				FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
				LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
				WHERE n.nspname = :schema AND c.relkind = 'r' AND c.relname = ANY(:tables::text[])
				ORDER BY c.relname
				""";

		/** The database's sessions by state: the queue's and everybody else's. */
		private static final String CONNECTIONS = """
				SELECT coalesce(state, 'other'), count(*) FROM pg_stat_activity
				WHERE datname = current_database() GROUP BY 1 ORDER BY 1
				""";

		@Override
		public StorageState state(Connection connection) throws SQLException {
			Map<String, Object> relations = new LinkedHashMap<>();
			long bytes = 0;
			try (SqlStatement select = this.tables.sql(TABLE_STATS).prepare(connection)) {
				select.bind("schema", this.tables.schema()).bindTexts("tables", this.tables.names());
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						bytes += rows.getLong(2) + rows.getLong(3);
						Map<String, Object> relation = new LinkedHashMap<>();
						relation.put("bytes", rows.getLong(2));
						relation.put("indexBytes", rows.getLong(3));
						relation.put("liveRows", rows.getLong(4));
						relation.put("deadRows", rows.getLong(5));
						Timestamp vacuumed = rows.getTimestamp(6);
						relation.put("lastVacuum", (vacuumed != null) ? vacuumed.toInstant().toString() : null);
						relations.put(rows.getString(1), relation);
					}
				}
			}
			Map<String, Object> connections = new LinkedHashMap<>();
			try (PreparedStatement select = connection.prepareStatement(CONNECTIONS);
					ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					connections.put(rows.getString(1), rows.getLong(2));
				}
			}
			return new StorageState("postgresql", this.database.location(), bytes, 0, 8192, bytes / 8192, 0,
					this.database.retries(),
					Map.of("schema", this.tables.schema(), "tables", relations, "connections", connections,
							"autovacuumOffFor", PostgresTableMaintenance.withoutAutovacuum(connection, this.tables)));
		}

		/**
		 * On for a hot standby and for default_transaction_read_only: found without
		 * writing or locking.
		 */
		@Override
		public String writeRefusal(Connection connection) throws SQLException {
			try (Statement statement = connection.createStatement();
					ResultSet rows = statement.executeQuery("SHOW transaction_read_only")) {
				if (rows.next() && "on".equalsIgnoreCase(rows.getString(1))) {
					return "the database is read-only (a standby, or default_transaction_read_only is on). Point the "
							+ "queue at the primary, or turn default_transaction_read_only off for its user.";
				}
			}
			return null;
		}

	}

}
