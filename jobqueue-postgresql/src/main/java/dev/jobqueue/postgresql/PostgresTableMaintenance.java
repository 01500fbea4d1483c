package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;

import dev.jobqueue.core.store.TableMaintenance;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * Vacuums of the queue's tables on PostgreSQL, for servers whose autovacuum is off (as
 * some test and CI servers are, and some operators turn it off per table).
 */
final class PostgresTableMaintenance implements TableMaintenance {

	/**
	 * The queue's tables that autovacuum skips: all of them when it is off on the server
	 * (or cannot run, with track_counts off), else those whose storage parameters turn it
	 * off. The parameter keeps the text it was set with, so every spelling of false that
	 * PostgreSQL accepts counts.
	 */
	private static final String WITHOUT_AUTOVACUUM = """
			SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = :schema AND c.relkind = 'r' AND c.relname = ANY(:tables::text[])
			AND (current_setting('autovacuum') <> 'on' OR current_setting('track_counts') <> 'on'
				OR EXISTS (SELECT 1 FROM unnest(c.reloptions) AS o(option)
					WHERE lower(o.option) IN ('autovacuum_enabled=false', 'autovacuum_enabled=off',
						'autovacuum_enabled=no', 'autovacuum_enabled=0', 'autovacuum_enabled=f',
						'autovacuum_enabled=n', 'autovacuum_enabled=of', 'autovacuum_enabled=fa',
						'autovacuum_enabled=fal', 'autovacuum_enabled=fals')))
			ORDER BY c.relname
			""";

	private final PostgresDatabase database;

	private final Tables tables;

	PostgresTableMaintenance(PostgresDatabase database, Tables tables) {
		this.database = database;
		this.tables = tables;
	}

	@Override
	public List<String> tablesWithoutAutovacuum() {
		return this.database.read("find the queue's tables autovacuum skips",
				(connection) -> withoutAutovacuum(connection, this.tables));
	}

	/** The queue's tables that autovacuum skips, read on {@code connection}. */
	static List<String> withoutAutovacuum(Connection connection, Tables tables) throws SQLException {
		try (SqlStatement select = tables.sql(WITHOUT_AUTOVACUUM).prepare(connection)) {
			return select.bind("schema", tables.schema()).bindTexts("tables", tables.names()).queryStrings();
		}
	}

	/**
	 * One {@code VACUUM (ANALYZE)} of every table of the queue, on a connection of its
	 * own in autocommit: a vacuum cannot run inside a transaction.
	 */
	@Override
	public void vacuum() {
		String names = Tables.NAMES.stream().map(this.tables::qualified).collect(Collectors.joining(", "));
		try (Connection connection = this.database.dataSource().getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			connection.setAutoCommit(true);
			try (Statement statement = connection.createStatement()) {
				statement.execute("VACUUM (ANALYZE) " + names);
			}
			finally {
				connection.setAutoCommit(autoCommit);
			}
		}
		catch (SQLException ex) {
			throw this.database.errors().translate(ex, "vacuum the queue's tables", this.database.location());
		}
	}

}
