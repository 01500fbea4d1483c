/**
 * Migrations of the SQLite schema that SQL alone cannot do, run by the queue's own Flyway
 * with the SQL scripts in {@code dev/jobqueue/sqlite/migration}.
 */
package dev.jobqueue.sqlite.migration;
