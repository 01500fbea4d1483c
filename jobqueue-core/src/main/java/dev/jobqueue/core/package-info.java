/**
 * The engine, free of Spring: the store SPI, the worker that claims and runs jobs, retry
 * and error classification.
 */
package dev.jobqueue.core;
