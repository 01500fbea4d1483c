package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

import dev.jobqueue.core.store.QueueSnapshot.StorageState;

/**
 * What a snapshot and a health check learn of the storage, each database its own way: a
 * SQLite file's pages and write-ahead log, PostgreSQL's relation sizes and sessions.
 */
public interface StorageFacts {

	/** The storage's state, read on the snapshot's connection. */
	StorageState state(Connection connection) throws SQLException;

	/**
	 * Why writes would be refused, found without writing or taking a lock, as the end of
	 * a sentence that says what to do; {@code null} when the database takes writes.
	 */
	String writeRefusal(Connection connection) throws SQLException;

}
