/**
 * The queue's writes in the caller's Spring-managed transactions
 * ({@link dev.jobqueue.jdbc.spring.SpringTransactions}).
 */
package dev.jobqueue.jdbc.spring;
