package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import org.sqlite.SQLiteConnection;
import org.sqlite.core.CoreStatement;

import dev.jobqueue.jdbc.Sql;

/**
 * The prepared statements of one physical SQLite connection, kept across transactions:
 * preparing the queue's statements anew in every transaction cost about a sixth of a
 * single enqueue (measured in the benchmark module). A pool closes the statements
 * prepared on its connection proxies when a connection goes back, so these are prepared
 * on the physical connection underneath, where they live until it closes.
 * <p>
 * Only the queue's own connections keep statements (see {@link #queueOwned}).
 * <p>
 * A connection is used by one thread at a time (it is borrowed from a pool, or held by a
 * transaction), so a cache needs no lock; the registry of caches has one. A statement
 * already in use (the same SQL twice in one transaction) is prepared once more, outside
 * the cache. Statements of a closed connection are finalized by SQLite's close; their
 * cache is dropped the next time a cache is made.
 */
final class StatementCache {

	/** More than the queue's statements on one connection; dynamic ones age out. */
	static final int MAX_STATEMENTS = 64;

	private static final Map<SQLiteConnection, StatementCache> caches = new IdentityHashMap<>();

	/** The entry of a connection whose statements are not kept. */
	private static final StatementCache NOT_CACHED = new StatementCache(null);

	private final SQLiteConnection connection;

	private final LinkedHashMap<Sql, Entry> statements = new LinkedHashMap<>(32, 0.75f, true) {
		@Override
		protected boolean removeEldestEntry(Map.Entry<Sql, Entry> eldest) {
			if (size() <= MAX_STATEMENTS) {
				return false;
			}
			if (!eldest.getValue().inUse) {
				closeQuietly(eldest.getValue().statement);
			}
			return true;
		}
	};

	private StatementCache(SQLiteConnection connection) {
		this.connection = connection;
	}

	/**
	 * @return the cache of the SQLite connection under {@code connection}, or
	 * {@code null} when there is none to reach
	 */
	static StatementCache of(Connection connection) throws SQLException {
		SQLiteConnection physical;
		if (connection instanceof SQLiteConnection sqlite) {
			physical = sqlite;
		}
		else if (connection.isWrapperFor(SQLiteConnection.class)) {
			physical = connection.unwrap(SQLiteConnection.class);
		}
		else {
			return null;
		}
		StatementCache cache;
		synchronized (caches) {
			cache = caches.get(physical);
		}
		if (cache == null) {
			cache = queueOwned(physical) ? new StatementCache(physical) : NOT_CACHED;
			synchronized (caches) {
				dropClosed();
				caches.put(physical, cache);
			}
		}
		return (cache != NOT_CACHED) ? cache : null;
	}

	/**
	 * Whether the queue opened this connection itself: its own pool opens every
	 * connection with {@code wal_autocheckpoint=0} ({@link SqliteDataSources#create}). An
	 * application's connections (a shared DataSource) are left as they were: statements
	 * kept open on them would make the application's own {@code VACUUM} fail.
	 */
	private static boolean queueOwned(SQLiteConnection connection) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			return Pragmas.number(statement, "wal_autocheckpoint") == 0;
		}
	}

	/**
	 * Finalizes the cached statements of {@code connection}, for {@code VACUUM}: SQLite
	 * refused it ("SQL statements in progress") on a connection holding the cache's
	 * statements, though each was reset.
	 */
	static void clear(Connection connection) throws SQLException {
		if (!connection.isWrapperFor(SQLiteConnection.class)) {
			return;
		}
		SQLiteConnection physical = connection.unwrap(SQLiteConnection.class);
		StatementCache cache;
		synchronized (caches) {
			cache = caches.remove(physical);
		}
		if (cache != null) {
			cache.statements.values().forEach((entry) -> closeQuietly(entry.statement));
			cache.statements.clear();
		}
	}

	/** Caches of connections that are still open, for tests. */
	static int openCaches() {
		synchronized (caches) {
			dropClosed();
			return caches.size();
		}
	}

	private static void dropClosed() {
		for (Iterator<SQLiteConnection> connections = caches.keySet().iterator(); connections.hasNext();) {
			if (isClosed(connections.next())) {
				connections.remove();
			}
		}
	}

	/**
	 * @return the prepared statement of {@code sql}, now in use; {@code null} when it is
	 * in use already
	 */
	PreparedStatement take(Sql sql) throws SQLException {
		Entry entry = this.statements.get(sql);
		if (entry != null && entry.statement.isClosed()) {
			this.statements.remove(sql);
			entry = null;
		}
		if (entry == null) {
			entry = new Entry(this.connection.prepareStatement(sql.text()));
			this.statements.put(sql, entry);
		}
		else if (entry.inUse) {
			return null;
		}
		entry.inUse = true;
		return entry.statement;
	}

	/**
	 * Takes back a statement from {@link #take}, its rows closed, ready for the next
	 * transaction.
	 */
	void release(Sql sql, PreparedStatement statement) throws SQLException {
		Entry entry = this.statements.get(sql);
		if (entry == null || entry.statement != statement) {
			// Evicted while in use.
			statement.close();
			return;
		}
		entry.inUse = false;
		try {
			statement.clearBatch();
			reset(statement);
		}
		catch (SQLException | RuntimeException ex) {
			this.statements.remove(sql);
			closeQuietly(statement);
			throw ex;
		}
	}

	/**
	 * Resets the statement in SQLite, as finalizing it would: one left mid-way (after an
	 * error, or rows not read to the end) would otherwise count as in progress and keep
	 * {@code COMMIT} or {@code VACUUM} on this connection from running. JDBC has no
	 * reset; sqlite-jdbc's statement exposes its handle.
	 */
	private static void reset(PreparedStatement statement) throws SQLException {
		if (statement instanceof CoreStatement core && !core.pointer.isClosed()) {
			core.pointer.safeRunInt((database, handle) -> database.reset(handle));
		}
	}

	private static boolean isClosed(SQLiteConnection connection) {
		try {
			return connection.isClosed();
		}
		catch (SQLException ex) {
			return true;
		}
	}

	private static void closeQuietly(PreparedStatement statement) {
		try {
			statement.close();
		}
		catch (SQLException ex) {
			// Closing the connection finalizes it anyway.
		}
	}

	private static final class Entry {

		final PreparedStatement statement;

		boolean inUse;

		Entry(PreparedStatement statement) {
			this.statement = statement;
		}

	}

}
