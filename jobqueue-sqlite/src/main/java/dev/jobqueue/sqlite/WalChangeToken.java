package dev.jobqueue.sqlite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * Size and modification time of the database's write-ahead log: every commit of any
 * process appends to it (or, after a checkpoint, rewrites it), so a change means another
 * process may have enqueued. A stat call, no query.
 */
final class WalChangeToken {

	private final SqliteDatabase database;

	/** The write-ahead log, once known; empty for an in-memory database. */
	private volatile Optional<Path> walFile;

	WalChangeToken(SqliteDatabase database) {
		this.database = database;
	}

	/**
	 * @return the token, or {@code null} when the database has no file to watch
	 */
	Object current() {
		Optional<Path> wal = this.walFile;
		if (wal == null) {
			wal = this.database.read("find the database file",
					(connection) -> Optional.ofNullable(SqliteDataSources.fileOf(connection.getMetaData().getURL()))
						.map(Pragmas::walOf));
			this.walFile = wal;
		}
		if (wal.isEmpty()) {
			return null;
		}
		try {
			BasicFileAttributes attributes = Files.readAttributes(wal.get(), BasicFileAttributes.class);
			return attributes.size() + "@" + attributes.lastModifiedTime().toMillis() + "."
					+ attributes.lastModifiedTime().toInstant().getNano();
		}
		catch (IOException ex) {
			return "no-wal";
		}
	}

}
