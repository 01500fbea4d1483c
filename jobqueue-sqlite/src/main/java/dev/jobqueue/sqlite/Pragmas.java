package dev.jobqueue.sqlite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Reads SQLite pragmas and the database file they describe; the schema check, insights
 * and retention share it.
 */
final class Pragmas {

	private Pragmas() {
	}

	/**
	 * @return the pragma's value as text, or {@code ""} when it returns no row
	 */
	static String text(Statement statement, String name) throws SQLException {
		try (ResultSet rows = statement.executeQuery("PRAGMA " + name)) {
			return rows.next() ? rows.getString(1) : "";
		}
	}

	/**
	 * @return the pragma's value as a number, or 0 when it returns no row
	 */
	static long number(Statement statement, String name) throws SQLException {
		try (ResultSet rows = statement.executeQuery("PRAGMA " + name)) {
			return rows.next() ? rows.getLong(1) : 0;
		}
	}

	/**
	 * @return the file of the main database, or {@code null} for an in-memory or
	 * temporary one
	 */
	static Path mainFile(Statement statement) throws SQLException {
		try (ResultSet rows = statement.executeQuery("PRAGMA database_list")) {
			while (rows.next()) {
				String file = rows.getString("file");
				if ("main".equals(rows.getString("name")) && file != null && !file.isEmpty()) {
					return Path.of(file);
				}
			}
		}
		return null;
	}

	/**
	 * @return the write-ahead log next to {@code database}
	 */
	static Path walOf(Path database) {
		return database.resolveSibling(database.getFileName() + "-wal");
	}

	/**
	 * @return the file's size, or {@code fallback} when it does not exist or cannot be
	 * read
	 */
	static long sizeOf(Path file, long fallback) {
		try {
			return (file != null && Files.exists(file)) ? Files.size(file) : fallback;
		}
		catch (IOException ex) {
			return fallback;
		}
	}

}
