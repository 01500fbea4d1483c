package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

import org.sqlite.SQLiteConnection;
import org.sqlite.core.CoreStatement;

import dev.jobqueue.jdbc.StatementCache;

/**
 * How SQLite connections keep prepared statements ({@link StatementCache}): preparing the
 * queue's statements anew in every transaction cost about a sixth of a single enqueue
 * (measured in the benchmark module). Only the queue's own connections keep statements.
 */
final class SqliteStatements implements StatementCache.Connections {

	static final StatementCache.Registry CACHES = new StatementCache.Registry(new SqliteStatements());

	private SqliteStatements() {
	}

	@Override
	public Connection physical(Connection connection) throws SQLException {
		if (connection instanceof SQLiteConnection) {
			return connection;
		}
		return connection.isWrapperFor(SQLiteConnection.class) ? connection.unwrap(SQLiteConnection.class) : null;
	}

	/**
	 * Whether the queue opened this connection itself: its own pool opens every
	 * connection with {@code wal_autocheckpoint=0} ({@link SqliteDataSources#create}). An
	 * application's connections (a shared DataSource) are left as they were: statements
	 * kept open on them would make the application's own {@code VACUUM} fail.
	 */
	@Override
	public boolean keepsStatements(Connection physical) throws SQLException {
		try (Statement statement = physical.createStatement()) {
			return Pragmas.number(statement, "wal_autocheckpoint") == 0;
		}
	}

	/**
	 * Resets the statement in SQLite, as finalizing it would: one left mid-way (after an
	 * error, or rows not read to the end) would otherwise count as in progress and keep
	 * {@code COMMIT} or {@code VACUUM} on this connection from running. JDBC has no
	 * reset; sqlite-jdbc's statement exposes its handle.
	 */
	@Override
	public void reset(PreparedStatement statement) throws SQLException {
		if (statement instanceof CoreStatement core && !core.pointer.isClosed()) {
			core.pointer.safeRunInt((database, handle) -> database.reset(handle));
		}
	}

	/**
	 * Finalizes the cached statements of {@code connection}, for {@code VACUUM}: SQLite
	 * refused it ("SQL statements in progress") on a connection holding the cache's
	 * statements, though each was reset.
	 */
	static void clear(Connection connection) throws SQLException {
		CACHES.clear(connection);
	}

}
