package dev.jobqueue.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

import org.sqlite.SQLiteConfig;

/**
 * {@link QueueInvariants} on a SQLite file, read on a connection of its own.
 */
public final class Invariants {

	private Invariants() {
	}

	/** The violations in the file's queue tables without prefix; empty when all hold. */
	public static List<String> violations(java.nio.file.Path file) {
		return violations(file, "");
	}

	/**
	 * The violations in the queue tables of {@code prefix}, each as one line naming the
	 * rule and the first rows that break it; empty when all hold.
	 */
	public static List<String> violations(java.nio.file.Path file, String prefix) {
		SQLiteConfig config = new SQLiteConfig();
		config.setBusyTimeout(30_000);
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file, config.toProperties())) {
			return QueueInvariants.violations(connection, prefix);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not check the invariants of " + file + ": " + ex.getMessage(), ex);
		}
	}

}
