package dev.jobqueue.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * Another process holding the database's write lock: arguments are the database file and
 * how long to hold it in milliseconds. Prints {@code LOCKED} once it holds the lock, and
 * commits when the time is up.
 */
public final class LockHolder {

	private LockHolder() {
	}

	public static void main(String[] args) throws Exception {
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + args[0]);
				Statement statement = connection.createStatement()) {
			statement.execute("PRAGMA busy_timeout = 10000");
			statement.execute("BEGIN IMMEDIATE");
			statement.execute("CREATE TABLE IF NOT EXISTS lock_holder_marks (at INTEGER)");
			statement.execute("INSERT INTO lock_holder_marks VALUES (" + System.currentTimeMillis() + ")");
			System.out.println("LOCKED");
			System.out.flush();
			Thread.sleep(Long.parseLong(args[1]));
			statement.execute("COMMIT");
			System.out.println("RELEASED");
		}
	}

	public static Process launch(Path file, long holdMillis, Path log) throws Exception {
		return ChildJvm.start(LockHolder.class, log, file, holdMillis).process();
	}

}
