/**
 * The MySQL and MariaDB implementation of the store: its dialect of the JDBC engine,
 * transactions, claims with {@code FOR UPDATE SKIP LOCKED}, linked inserts and schema.
 */
package dev.jobqueue.mysql;
