package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The prepared statements of one physical connection, kept across transactions: a pool
 * closes the statements prepared on its connection proxies when a connection goes back,
 * so these are prepared on the physical connection underneath, where they live until it
 * closes. A store keeps one {@link Registry} of caches and says, through its
 * {@link Connections}, how to reach the physical connection, which connections keep
 * statements, and how a statement is made ready for the next transaction.
 * <p>
 * A connection is used by one thread at a time (it is borrowed from a pool, or held by a
 * transaction), so a cache needs no lock; the registry has one. A statement already in
 * use (the same SQL twice in one transaction) is prepared once more, outside the cache.
 * Statements of a closed connection are finalized by the driver's close; their cache is
 * dropped the next time a cache is made.
 */
public final class StatementCache {

	/** More than the queue's statements on one connection; dynamic ones age out. */
	public static final int MAX_STATEMENTS = 64;

	private final Connection connection;

	private final Connections connections;

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

	private StatementCache(Connection connection, Connections connections) {
		this.connection = connection;
		this.connections = connections;
	}

	/**
	 * @return the prepared statement of {@code sql}, now in use; {@code null} when it is
	 * in use already
	 */
	public PreparedStatement take(Sql sql) throws SQLException {
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
	public void release(Sql sql, PreparedStatement statement) throws SQLException {
		Entry entry = this.statements.get(sql);
		if (entry == null || entry.statement != statement) {
			// Evicted while in use.
			statement.close();
			return;
		}
		entry.inUse = false;
		try {
			statement.clearBatch();
			this.connections.reset(statement);
		}
		catch (SQLException | RuntimeException ex) {
			this.statements.remove(sql);
			closeQuietly(statement);
			throw ex;
		}
	}

	private void closeAll() {
		this.statements.values().forEach((entry) -> closeQuietly(entry.statement));
		this.statements.clear();
	}

	private static void closeQuietly(PreparedStatement statement) {
		try {
			statement.close();
		}
		catch (SQLException ex) {
			// Closing the connection finalizes it anyway.
		}
	}

	/** What a store says about its connections. */
	public interface Connections {

		/**
		 * @return the physical connection under {@code connection}, or {@code null} when
		 * there is none to reach
		 */
		Connection physical(Connection connection) throws SQLException;

		/** Whether statements are kept on this physical connection. */
		boolean keepsStatements(Connection physical) throws SQLException;

		/**
		 * Makes a statement whose rows are closed ready for the next transaction; nothing
		 * by default.
		 */
		default void reset(PreparedStatement statement) throws SQLException {
		}

	}

	/** The caches of one store's physical connections. */
	public static final class Registry {

		private final Connections connections;

		private final Map<Connection, StatementCache> caches = new IdentityHashMap<>();

		/** The entry of a connection whose statements are not kept. */
		private final StatementCache notCached;

		public Registry(Connections connections) {
			this.connections = Objects.requireNonNull(connections, "'connections' must not be null");
			this.notCached = new StatementCache(null, connections);
		}

		/**
		 * @return the cache of the physical connection under {@code connection}, or
		 * {@code null} when there is none to reach or it keeps no statements
		 */
		public StatementCache of(Connection connection) throws SQLException {
			Connection physical = this.connections.physical(connection);
			if (physical == null) {
				return null;
			}
			StatementCache cache;
			synchronized (this.caches) {
				cache = this.caches.get(physical);
			}
			if (cache == null) {
				cache = this.connections.keepsStatements(physical) ? new StatementCache(physical, this.connections)
						: this.notCached;
				synchronized (this.caches) {
					dropClosed();
					this.caches.put(physical, cache);
				}
			}
			return (cache != this.notCached) ? cache : null;
		}

		/**
		 * Closes the cached statements of the physical connection under
		 * {@code connection}.
		 */
		public void clear(Connection connection) throws SQLException {
			Connection physical = this.connections.physical(connection);
			if (physical == null) {
				return;
			}
			StatementCache cache;
			synchronized (this.caches) {
				cache = this.caches.remove(physical);
			}
			if (cache != null) {
				cache.closeAll();
			}
		}

		/** Caches of connections that are still open, for tests. */
		public int openCaches() {
			synchronized (this.caches) {
				dropClosed();
				return this.caches.size();
			}
		}

		private void dropClosed() {
			for (Iterator<Connection> physical = this.caches.keySet().iterator(); physical.hasNext();) {
				if (isClosed(physical.next())) {
					physical.remove();
				}
			}
		}

		private static boolean isClosed(Connection connection) {
			try {
				return connection.isClosed();
			}
			catch (SQLException ex) {
				return true;
			}
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
