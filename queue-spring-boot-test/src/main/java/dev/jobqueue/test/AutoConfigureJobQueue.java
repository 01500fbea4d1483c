package dev.jobqueue.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Sets up the queue of a {@code @SpringBootTest} for tests of job handlers:
 * <ul>
 * <li>a {@link JobQueueTester} bean, to run due jobs, move the queue's clock and wait
 * until the queue is idle;</li>
 * <li>a queue clock that only the test moves, starting at the time the context
 * starts;</li>
 * <li>by default, jobs and schedules run only when the test asks
 * ({@link JobQueueTester#runDueJobs()}), on the test thread;
 * {@link RunJobs#IN_BACKGROUND} keeps the application's worker and scheduler
 * threads;</li>
 * <li>by default, a throwaway queue database: a file in a new temporary directory,
 * deleted when the context closes. When the queue shares the application's SQLite
 * DataSource, that DataSource gets the throwaway file, so enqueue still joins the
 * caller's transaction as in production.</li>
 * </ul>
 * Tests with the same settings share one context (and so one database), as Spring's test
 * context cache does.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(JobQueueTestAutoConfiguration.class)
public @interface AutoConfigureJobQueue {

	/** Where jobs and schedules run. */
	RunJobs runJobs() default RunJobs.ON_TEST_THREAD;

	/**
	 * Whether the queue gets a throwaway database file. Turn it off to keep the database
	 * the test configuration names (a PostgreSQL queue, say); the property
	 * {@code jobqueue.test.temporary-database=false} does the same from a profile or a
	 * properties file. Which database the queue uses, and what it replaced, is logged
	 * when the context starts.
	 */
	boolean temporaryDatabase() default true;

	/** Where jobs and schedules run in a test. */
	enum RunJobs {

		/**
		 * Only when the test calls {@link JobQueueTester#runDueJobs()}, on the test
		 * thread: the worker and the scheduler do not start. Outcomes are known when the
		 * call returns, nothing runs behind the test's back.
		 */
		ON_TEST_THREAD,

		/**
		 * On the application's own worker and scheduler threads, as in production; the
		 * test waits with {@link JobQueueTester#awaitIdle(java.time.Duration)}.
		 */
		IN_BACKGROUND

	}

}
