package dev.jobqueue.autoconfigure;

import java.util.concurrent.ExecutorService;

import org.junit.jupiter.api.Test;

import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

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
	void platformThreadsByDefault() throws Exception {
		ExecutorService executor = new WorkerFactory(null, null, null, null, null, null, new QueueProperties.Worker(),
				new MockEnvironment(), null, null, 1)
			.executor();
		Thread thread = executor.submit(Thread::currentThread).get();
		executor.shutdown();
		assertThat(thread.getName()).startsWith("jobqueue-worker-");
	}

}
