/**
 * The PostgreSQL implementation of the store: transactions, schema, statements and
 * LISTEN/NOTIFY wake-ups.
 */
package dev.jobqueue.postgresql;
