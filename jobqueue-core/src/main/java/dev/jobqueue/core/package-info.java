/**
 * The engine, free of Spring and JDBC: the queue a user calls
 * ({@link dev.jobqueue.core.DefaultJobQueue}), the handlers it knows, payloads, and what
 * every part shares (background loops, signals between the queue and the worker). The
 * sub-packages hold the store SPI ({@code store}), the worker ({@code worker}), recurring
 * jobs ({@code schedule}) and retention ({@code retention}).
 */
package dev.jobqueue.core;
