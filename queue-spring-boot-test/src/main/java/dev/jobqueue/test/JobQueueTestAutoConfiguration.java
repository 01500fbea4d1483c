package dev.jobqueue.test;

import java.time.Clock;
import java.time.temporal.ChronoUnit;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import dev.jobqueue.JobQueue;
import dev.jobqueue.autoconfigure.JobQueueClock;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.QueueScheduler;
import dev.jobqueue.autoconfigure.QueueWorker;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.LocalSignals;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.test.AutoConfigureJobQueue.RunJobs;

/**
 * The beans of {@link AutoConfigureJobQueue}: the queue's test clock (as the queue's
 * {@link JobQueueClock}) and the {@link JobQueueTester}. Declared before the queue's own
 * auto-configuration, so that the queue reads the test clock; a {@code Clock} bean of the
 * application's is left alone. The tester is declared even when the context has no queue,
 * so that a test using it is told what is missing.
 */
@AutoConfiguration(before = QueueAutoConfiguration.class)
public final class JobQueueTestAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	TestQueueClock testQueueClock() {
		// Whole milliseconds, as the store keeps instants: times read back equal the
		// clock's.
		return new TestQueueClock(Clock.systemUTC().instant().truncatedTo(ChronoUnit.MILLIS));
	}

	@Bean
	@ConditionalOnMissingBean
	JobQueueClock jobQueueClock(TestQueueClock clock) {
		return new JobQueueClock(clock);
	}

	@Bean
	RunRecorder jobQueueTestRunRecorder() {
		return new RunRecorder();
	}

	@Bean
	@ConditionalOnMissingBean
	JobQueueTester jobQueueTester(Environment environment, ObjectProvider<JobQueue> jobQueue,
			ObjectProvider<QueueWorker> worker, ObjectProvider<QueueScheduler> scheduler,
			ObjectProvider<QueueInsights> insights, ObjectProvider<HandlerRegistry> handlers,
			ObjectProvider<LocalSignals> signals, ObjectProvider<TestQueueClock> clock,
			ObjectProvider<JobQueueClock> queueClock, RunRecorder recorder, ObjectProvider<JobStore> store) {
		RunJobs runJobs = environment.getProperty(JobQueueTestContextCustomizer.RUN_JOBS_PROPERTY, RunJobs.class,
				RunJobs.ON_TEST_THREAD);
		return new JobQueueTester(runJobs, jobQueue, worker, scheduler, insights, handlers, signals, clock, queueClock,
				recorder, store);
	}

}
