/**
 * The store interfaces of the engine on any JDBC database, once: named statements
 * ({@link dev.jobqueue.jdbc.Sql}), transactions ({@link dev.jobqueue.jdbc.JdbcDatabase}),
 * table names ({@link dev.jobqueue.jdbc.Tables}) and the store parts whose SQL every
 * database shares. What differs goes through a {@link dev.jobqueue.jdbc.Dialect}.
 */
package dev.jobqueue.jdbc;
