/**
 * The API applications use: {@link dev.jobqueue.JobQueue},
 * {@link dev.jobqueue.JobHandler} and the types around them.
 */
@NullMarked
package dev.jobqueue;

import org.jspecify.annotations.NullMarked;
