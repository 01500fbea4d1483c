/**
 * The SQLite implementation of the store: transactions, schema and statements.
 */
package dev.jobqueue.sqlite;
