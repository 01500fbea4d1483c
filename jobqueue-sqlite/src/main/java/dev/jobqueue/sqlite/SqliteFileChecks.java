package dev.jobqueue.sqlite;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;

import org.sqlite.SQLiteConfig;

import dev.jobqueue.JobQueueException;

/**
 * What a tool checks before the store opens a SQLite file: the store's pool would turn on
 * WAL and write to any file it opens, so a file that is not a queue is refused before,
 * reading only its header and, on a read-only connection, its tables.
 */
final class SqliteFileChecks {

	private static final byte[] SQLITE_HEADER = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);

	private SqliteFileChecks() {
	}

	/**
	 * @param historyTable the queue's schema history table, which a queue's file holds
	 * @param mayCreate whether a missing file or one without the queue may be opened (to
	 * create the queue in it)
	 * @throws IllegalArgumentException for an in-memory database, which holds no queue
	 * @throws JobQueueException for a file that is missing, not SQLite or not a queue
	 */
	static void check(String url, String historyTable, boolean mayCreate) {
		Path file = SqliteDataSources.fileOf(url);
		if (file == null) {
			if (mayCreate) {
				return;
			}
			throw new IllegalArgumentException("An in-memory SQLite database holds no queue: name the queue's file");
		}
		if (!Files.isRegularFile(file)) {
			if (mayCreate) {
				return;
			}
			throw new JobQueueException("No queue database at " + file + ": the file does not exist"
					+ (Files.isDirectory(file) ? " (it is a folder)" : "")
					+ " (create one with 'jobqueue-cli migrate', or point --db at the application's file)");
		}
		checkHeader(file);
		if (!mayCreate && !hasTable(file, historyTable)) {
			throw new JobQueueException("Not a queue database: " + file + " has no table " + historyTable
					+ " (wrong file, or another --table-prefix? 'jobqueue-cli migrate' creates a queue)");
		}
	}

	private static void checkHeader(Path file) {
		byte[] header = new byte[SQLITE_HEADER.length];
		int read;
		try (InputStream in = Files.newInputStream(file)) {
			read = in.readNBytes(header, 0, header.length);
		}
		catch (IOException ex) {
			throw new JobQueueException("Cannot read " + file + ": " + ex.getMessage(), ex);
		}
		if (read == 0) {
			throw new JobQueueException("Not a queue database: " + file + " is an empty file");
		}
		if (read < header.length || !Arrays.equals(header, SQLITE_HEADER)) {
			throw new JobQueueException("Not a queue database: " + file + " is not a SQLite file");
		}
	}

	private static boolean hasTable(Path file, String table) {
		SQLiteConfig config = new SQLiteConfig();
		config.setReadOnly(true);
		config.setBusyTimeout(5000);
		try (Connection connection = config.createConnection("jdbc:sqlite:" + file);
				PreparedStatement query = connection
					.prepareStatement("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?")) {
			query.setString(1, table);
			try (ResultSet rows = query.executeQuery()) {
				return rows.next() && rows.getInt(1) > 0;
			}
		}
		catch (SQLException ex) {
			throw new JobQueueException("Cannot read " + file + ": " + ex.getMessage(), ex);
		}
	}

}
