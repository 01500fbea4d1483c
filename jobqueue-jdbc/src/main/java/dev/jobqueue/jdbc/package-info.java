/**
 * The store interfaces of the engine on any JDBC database, once: named statements
 * ({@link dev.jobqueue.jdbc.Sql}), transactions ({@link dev.jobqueue.jdbc.JdbcDatabase}),
 * table names ({@link dev.jobqueue.jdbc.Tables}) and the store parts whose SQL every
 * database shares: schedules ({@link dev.jobqueue.jdbc.JdbcScheduleStore}), retention
 * ({@link dev.jobqueue.jdbc.JdbcRetentionStore}) and the schema's migration and
 * verification ({@link dev.jobqueue.jdbc.JdbcSchema}). What differs goes through a
 * {@link dev.jobqueue.jdbc.Dialect} or a store's subclass.
 */
package dev.jobqueue.jdbc;
