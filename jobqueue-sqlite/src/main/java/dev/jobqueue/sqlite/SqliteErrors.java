package dev.jobqueue.sqlite;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.SQLException;

import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

import dev.jobqueue.JobQueueException;

/** Turns SQLite failures into errors that say what happened and what to do. */
final class SqliteErrors {

	static final int SQLITE_BUSY = 5;

	static final int SQLITE_LOCKED = 6;

	static final int SQLITE_READONLY = 8;

	static final int SQLITE_IOERR = 10;

	static final int SQLITE_CORRUPT = 11;

	static final int SQLITE_FULL = 13;

	static final int SQLITE_CANTOPEN = 14;

	static final int SQLITE_CONSTRAINT = 19;

	static final int SQLITE_NOTADB = 26;

	private SqliteErrors() {
	}

	/**
	 * Why the operating system refuses writes to the database file or its WAL, or
	 * {@code null} if it does not (or the location is not a file). An I/O error on write
	 * says only "disk I/O error"; this tells a read-only file system or an immutable file
	 * apart from a failing disk.
	 */
	static String writeRefusal(String location) {
		Path file;
		try {
			file = location.startsWith("jdbc:sqlite:") ? SqliteDataSources.fileOf(location) : Path.of(location);
		}
		catch (RuntimeException ex) {
			return null;
		}
		if (file == null) {
			return null;
		}
		for (Path candidate : new Path[] { file, Path.of(file + "-wal") }) {
			if (!Files.isRegularFile(candidate)) {
				continue;
			}
			try (FileChannel channel = FileChannel.open(candidate, StandardOpenOption.WRITE)) {
				// Opening for writing is enough: nothing is written.
			}
			catch (FileSystemException ex) {
				return "the operating system refuses writes to " + candidate
						+ ((ex.getReason() != null) ? " (" + ex.getReason() + ")" : "");
			}
			catch (IOException | RuntimeException ex) {
				return null;
			}
		}
		return null;
	}

	/** The primary result code, without the extended bits. */
	static int primaryCode(SQLException ex) {
		int code = ex.getErrorCode() & 0xff;
		if (code == 0 && ex.getMessage() != null) {
			String message = ex.getMessage();
			if (message.contains("SQLITE_BUSY")) {
				return SQLITE_BUSY;
			}
			if (message.contains("SQLITE_READONLY")) {
				return SQLITE_READONLY;
			}
			if (message.contains("SQLITE_FULL")) {
				return SQLITE_FULL;
			}
		}
		return code;
	}

	static boolean isBusy(SQLException ex) {
		int code = primaryCode(ex);
		return code == SQLITE_BUSY || code == SQLITE_LOCKED;
	}

	/**
	 * What a lock conflict met by queue work in the caller's transaction means: the queue
	 * cannot cure it (the transaction is the caller's), so the message says why and what
	 * the caller does.
	 */
	static String inCallerTransaction(SQLException ex, String action, String location) {
		String what = "Could not " + action + " in the caller's transaction (database " + location + "): ";
		if (isBusySnapshot(ex)) {
			return what + "another connection wrote to the database after "
					+ "this transaction began reading it, and SQLite cannot let a transaction that read an older "
					+ "state write (SQLITE_BUSY_SNAPSHOT; waiting longer does not help). Nothing was written: retry the "
					+ "transaction, which then reads the current state. The transaction began DEFERRED; set the "
					+ "driver property transaction_mode=IMMEDIATE on the DataSource (for example "
					+ "spring.datasource.hikari.data-source-properties.transaction_mode=IMMEDIATE) so transactions "
					+ "take the write lock when they begin and this cannot happen.";
		}
		return what + "the database stayed locked by another connection or process "
				+ "longer than busy_timeout. Nothing was written: retry the transaction, and look for a process "
				+ "holding a long write transaction on the file.";
	}

	static boolean isBusySnapshot(SQLException ex) {
		return (ex instanceof SQLiteException sqlite && sqlite.getResultCode() == SQLiteErrorCode.SQLITE_BUSY_SNAPSHOT)
				|| (ex.getMessage() != null && ex.getMessage().contains("SQLITE_BUSY_SNAPSHOT"));
	}

	/** Why a file cannot be opened, as far as its folder tells. */
	private static String cannotOpen(String location) {
		Path file = null;
		try {
			file = location.startsWith("jdbc:sqlite:") ? SqliteDataSources.fileOf(location) : Path.of(location);
		}
		catch (RuntimeException ex) {
			// Not a file's location: say what holds for any.
		}
		Path folder = (file != null) ? file.toAbsolutePath().getParent() : null;
		if (folder != null && !Files.isDirectory(folder)) {
			return "the folder of the database file, " + folder + ", does not exist. Create it, or point the URL at "
					+ "an existing folder (the queue creates the folder of a file of its own, from "
					+ "jobqueue.datasource.url, but not that of an application's DataSource).";
		}
		return "the database file cannot be opened. It may have been deleted or moved while the application ran, "
				+ "or its folder is not accessible to this process; the queue does not create a new empty one in "
				+ "its place. Restore the file, or restart with the right URL.";
	}

	static JobQueueException translate(SQLException ex, String action, String location) {
		String where = " (database " + location + ")";
		int code = primaryCode(ex);
		if (code == SQLITE_IOERR || code == SQLITE_READONLY) {
			String refusal = writeRefusal(location);
			if (refusal != null) {
				return new JobQueueException("Could not " + action + where + ": the database is read-only: " + refusal
						+ ". The file system may be mounted read-only or the file made immutable (chattr +i). Make "
						+ "the file and its -wal/-shm files writable again; nothing was written, and work resumes "
						+ "once they are.", ex);
			}
		}
		return switch (code) {
			case SQLITE_BUSY, SQLITE_LOCKED -> new JobQueueException("Could not " + action + where + ": the database "
					+ "stayed locked by another connection or process longer than the queue waits. Look for a "
					+ "process holding a long write transaction on the file, or raise jobqueue.datasource.busy-timeout.",
					ex);
			case SQLITE_READONLY -> new JobQueueException("Could not " + action + where
					+ ": the database is read-only. "
					+ "Check that the file, its folder and its -wal/-shm files are writable by this process and that "
					+ "the disk is mounted read-write. Nothing was written.", ex);
			case SQLITE_FULL -> new JobQueueException("Could not " + action + where + ": the disk is full. Free space "
					+ "on the disk holding the database; nothing was written, and work resumes once there is room.",
					ex);
			case SQLITE_CANTOPEN ->
				new JobQueueException("Could not " + action + where + ": " + cannotOpen(location), ex);
			case SQLITE_CORRUPT,
					SQLITE_NOTADB ->
				new JobQueueException("Could not " + action + where + ": the file is "
						+ "not a healthy SQLite database (" + ex.getMessage() + "). Restore it from a backup; "
						+ "'sqlite3 FILE \"PRAGMA integrity_check\"' tells what is damaged.", ex);
			case SQLITE_IOERR -> new JobQueueException("Could not " + action + where + ": the disk reported an I/O "
					+ "error (" + ex.getMessage() + "). Check the disk and the file system.", ex);
			default -> new JobQueueException("Could not " + action + where + ": " + ex.getMessage(), ex);
		};
	}

}
