package dev.jobqueue.autoconfigure;

import java.time.Duration;
import java.util.concurrent.ExecutorService;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class WorkerFactoryTests {

	@Test
	void handlersRunOnVirtualThreadsWhenTheApplicationEnablesThemOnJava21() throws Exception {
		MockEnvironment environment = new MockEnvironment().withProperty("spring.threads.virtual.enabled", "true");
		QueueProperties.Worker worker = new QueueProperties.Worker();
		ExecutorService executor = new WorkerFactory(null, null, null, null, null, null, worker, environment, null,
				null, 1)
			.executor();
		Thread thread = executor.submit(Thread::currentThread).get();
		executor.shutdown();
		boolean java21 = Runtime.version().feature() >= 21;
		boolean virtual = java21 && (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		assertThat(virtual).isEqualTo(java21);
		assertThat(thread.getName()).startsWith(java21 ? "jobqueue-vworker-" : "jobqueue-worker-");
	}

	@Test
	void defaultShutdownSettingsLogNothingAtStart(CapturedOutput output) {
		Duration wait = new WorkerFactory(null, null, null, null, null, null, new QueueProperties.Worker(),
				new MockEnvironment(), null, null, 1)
			.shutdownWait();
		assertThat(wait).isEqualTo(Duration.ofSeconds(27));
		assertThat(output).doesNotContain("for running jobs at shutdown");
	}

	@Test
	void aShutdownTimeoutTheUserSetIsSaidWhenItIsCut(CapturedOutput output) {
		QueueProperties.Worker worker = new QueueProperties.Worker();
		worker.setShutdownTimeout(Duration.ofSeconds(60));
		MockEnvironment environment = new MockEnvironment().withProperty("jobqueue.worker.shutdown-timeout", "60s");
		new WorkerFactory(null, null, null, null, null, null, worker, environment, null, null, 1).shutdownWait();
		assertThat(output).contains(
				"The worker waits PT27S for running jobs at shutdown, not " + "jobqueue.worker.shutdown-timeout=PT1M");
	}

	@Test
	void platformThreadsByDefault() throws Exception {
		ExecutorService executor = new WorkerFactory(null, null, null, null, null, null, new QueueProperties.Worker(),
				new MockEnvironment(), null, null, 1)
			.executor();
		Thread thread = executor.submit(Thread::currentThread).get();
		executor.shutdown();
		assertThat(thread.getName()).startsWith("jobqueue-worker-");
	}

}
