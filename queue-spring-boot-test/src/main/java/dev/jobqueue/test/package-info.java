/**
 * Test support for applications that use the queue:
 * {@link dev.jobqueue.test.AutoConfigureJobQueue} on a {@code @SpringBootTest}, then
 * {@link dev.jobqueue.test.JobQueueTester} to run due jobs, move the queue's clock and
 * wait until the queue is idle.
 */
@NullMarked
package dev.jobqueue.test;

import org.jspecify.annotations.NullMarked;
