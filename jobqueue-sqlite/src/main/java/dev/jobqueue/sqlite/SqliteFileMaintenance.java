package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;

import org.sqlite.SQLiteConnection;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.core.store.FileMaintenance;
import dev.jobqueue.core.store.StorageStats;

/**
 * The upkeep of a SQLite file, which only the SQLite store offers.
 *
 * <ul>
 * <li>{@code PRAGMA incremental_vacuum(n)} runs in a short write transaction of its own
 * and frees at most {@code n} pages; it does nothing unless the file has
 * {@code auto_vacuum=INCREMENTAL}.</li>
 * <li>In WAL mode the database file shrinks only when a checkpoint has copied the whole
 * log back, so the cleaner checkpoints last.</li>
 * </ul>
 */
public final class SqliteFileMaintenance implements FileMaintenance {

	/**
	 * A truncating checkpoint waits for readers this long at most, blocking other
	 * processes' writers meanwhile.
	 */
	private static final int TRUNCATE_BUSY_TIMEOUT_MILLIS = 250;

	private final SqliteDatabase database;

	private volatile Path file;

	public SqliteFileMaintenance(SqliteDatabase database) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
	}

	/** The sizes of the file, its write-ahead log and the free pages inside it. */
	public StorageStats storage() {
		return this.database.read("read the database's size", this::storage);
	}

	private StorageStats storage(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			long pageSize = Pragmas.number(statement, "page_size");
			long freePages = Pragmas.number(statement, "freelist_count");
			boolean incremental = Pragmas.number(statement, "auto_vacuum") == 2;
			Path db = file(statement);
			return new StorageStats(Pragmas.sizeOf(db, 0), (db != null) ? Pragmas.sizeOf(Pragmas.walOf(db), 0) : 0,
					pageSize * freePages, incremental);
		}
	}

	@Override
	public long reclaimFreeSpace(int maxPages) {
		if (maxPages <= 0) {
			throw new IllegalArgumentException("'maxPages' must be positive");
		}
		return this.database.write("hand free pages back to the file system", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				if (Pragmas.number(statement, "auto_vacuum") != 2) {
					return 0L;
				}
				long pageSize = Pragmas.number(statement, "page_size");
				long before = Pragmas.number(statement, "freelist_count");
				// The pragma frees one page each time it is stepped, and the driver steps
				// a statement once:
				// sqlite3_exec steps it to the end.
				int code = connection.unwrap(SQLiteConnection.class)
					.getDatabase()
					._exec("PRAGMA incremental_vacuum(" + maxPages + ")");
				if (code != 0) {
					throw new SQLException("PRAGMA incremental_vacuum failed with SQLite result code " + code, null,
							code);
				}
				long pages = before - Pragmas.number(statement, "freelist_count");
				return pages * pageSize;
			}
		});
	}

	@Override
	public StorageStats checkpoint(boolean truncate) {
		if (!truncate) {
			// Passive: copies what no reader still needs and never waits, so it needs no
			// write lock.
			return this.database.read("checkpoint the write-ahead log", (connection) -> {
				try (Statement statement = connection.createStatement()) {
					checkpoint(statement, "PASSIVE");
				}
				return storage(connection);
			});
		}
		return this.database.writeOutsideTransaction("checkpoint and truncate the write-ahead log", (connection) -> {
			truncatingCheckpoint(connection);
			return storage(connection);
		});
	}

	/** Rewrites the whole file compactly ({@code VACUUM}), then truncates the log. */
	public StorageStats vacuum() {
		return this.database.writeOutsideTransaction("vacuum the database", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				statement.execute("VACUUM");
			}
			truncatingCheckpoint(connection);
			return storage(connection);
		});
	}

	@Override
	public StorageStats enableIncrementalVacuum() {
		return this.database.writeOutsideTransaction("switch incremental vacuum on", (connection) -> {
			try (Statement statement = connection.createStatement()) {
				if (Pragmas.number(statement, "auto_vacuum") == 2) {
					return storage(connection);
				}
				statement.execute("PRAGMA auto_vacuum = INCREMENTAL");
				// The mode of an existing file changes only when VACUUM rewrites it.
				statement.execute("VACUUM");
				long mode = Pragmas.number(statement, "auto_vacuum");
				if (mode != 2) {
					throw new JobQueueException("SQLite kept auto_vacuum=" + mode + " on " + this.database.location()
							+ " after VACUUM; incremental vacuum could not be switched on. Check that no other "
							+ "connection holds the file open in a way that prevents VACUUM, then try again.");
				}
			}
			truncatingCheckpoint(connection);
			return storage(connection);
		});
	}

	private void truncatingCheckpoint(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			long busyTimeout = Pragmas.number(statement, "busy_timeout");
			statement.execute("PRAGMA busy_timeout = " + TRUNCATE_BUSY_TIMEOUT_MILLIS);
			try {
				checkpoint(statement, "TRUNCATE");
			}
			finally {
				statement.execute("PRAGMA busy_timeout = " + busyTimeout);
			}
		}
	}

	/**
	 * @return whether the checkpoint could not finish because of readers or writers
	 * (busy)
	 */
	private static boolean checkpoint(Statement statement, String mode) throws SQLException {
		try (ResultSet rows = statement.executeQuery("PRAGMA wal_checkpoint(" + mode + ")")) {
			return rows.next() && rows.getInt(1) != 0;
		}
	}

	private Path file(Statement statement) throws SQLException {
		Path known = this.file;
		if (known == null) {
			known = Pragmas.mainFile(statement);
			this.file = known;
		}
		return known;
	}

}
