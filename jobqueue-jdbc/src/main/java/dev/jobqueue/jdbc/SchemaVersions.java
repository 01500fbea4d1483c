package dev.jobqueue.jdbc;

import org.jspecify.annotations.Nullable;

/**
 * The queue's schema version in a database next to the newest of the store's migrations,
 * as {@link JdbcSchema#versions()} reads it from the history table without changing
 * anything.
 *
 * @param applied the version applied last, or {@code null} when none is
 * @param known the newest version of the store's migrations
 * @param pending migrations the store has that the database has not
 * @param newer whether the database has migrations the store does not know
 */
public record SchemaVersions(@Nullable String applied, String known, int pending, boolean newer) {

	/** Whether the database holds the queue at an older version than the store's. */
	public boolean behind() {
		return this.pending > 0 && this.applied != null;
	}

}
