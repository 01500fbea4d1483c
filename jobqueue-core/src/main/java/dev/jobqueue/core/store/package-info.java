/**
 * The store SPI: what the engine asks of a database
 * ({@link dev.jobqueue.core.store.QueueStorage} and the parts it hands out) and the
 * values that cross it. Depends on nothing else in the engine, so a store module needs
 * only this package and the API.
 */
package dev.jobqueue.core.store;
