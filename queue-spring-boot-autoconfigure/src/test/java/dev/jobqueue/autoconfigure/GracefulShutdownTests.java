package dev.jobqueue.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.actuate.ObservabilityTestApplication;
import dev.jobqueue.testing.Invariants;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Closing the context while handlers run for 30 s, with
 * {@code spring.lifecycle.timeout-per-shutdown-phase=2s}: the close ends within the phase
 * (the worker's wait is cut to fit it), and every run that did not end is handed back, or
 * failed if it must not run twice, before the database closes.
 */
class GracefulShutdownTests {

	static final CountDownLatch started = new CountDownLatch(3);

	@TempDir
	Path dir;

	private ConfigurableApplicationContext context;

	@AfterEach
	void closeContext() {
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void closingTheContextHandsBackOrFailsEveryUnfinishedRunWithinTheShutdownPhase() throws Exception {
		Path file = this.dir.resolve("queue.db");
		this.context = new SpringApplicationBuilder(ObservabilityTestApplication.class, Handlers.class)
			.web(WebApplicationType.SERVLET)
			.properties("server.port=0", "spring.lifecycle.timeout-per-shutdown-phase=2s",
					"jobqueue.worker.shutdown-timeout=30s", "jobqueue.worker.poll-interval=100ms",
					"jobqueue.datasource.url=jdbc:sqlite:" + file)
			.run();
		JobQueue queue = this.context.getBean(JobQueue.class);
		long resize = queue.enqueue("resize", "x");
		long charge = queue.enqueue("charge", "x");
		long deaf = queue.enqueue("deaf", "x");
		assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();

		ConfigurableApplicationContext closing = this.context;
		Thread closer = new Thread(closing::close, "test-close");
		closer.start();
		// Generous: the phase is 2 s; the handlers would run 30 s.
		await().atMost(Duration.ofSeconds(20)).until(() -> !closer.isAlive());
		assertThat(closing.isActive()).isFalse();
		this.context = null;

		try (TestDatabase db = TestDatabase.create(file, "")) {
			assertThat(db.column("SELECT status || ' ' || attempts || ' ' || coalesce(error_code, '-') FROM jobs "
					+ "WHERE id IN (?, ?, ?) ORDER BY id", resize, charge, deaf))
				.containsExactly("pending 0 -", "failed 1 " + ErrorCodes.SHUTDOWN_NOT_REPEATABLE, "pending 0 -");
			assertThat(Invariants.violations(file)).isEmpty();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Handlers {

		@Bean
		SlowHandlers slowHandlers() {
			return new SlowHandlers();
		}

	}

	static class SlowHandlers {

		@JobHandler("resize")
		void resize(String input) throws InterruptedException {
			started.countDown();
			Thread.sleep(30_000);
		}

		@JobHandler(value = "charge", repeatable = false)
		void charge(String input) throws InterruptedException {
			started.countDown();
			Thread.sleep(30_000);
		}

		/** Ignores its interrupt: the shutdown must not wait for it. */
		@JobHandler("deaf")
		void deaf(String input) {
			started.countDown();
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
			while (System.nanoTime() - until < 0) {
				try {
					Thread.sleep(100);
				}
				catch (InterruptedException ex) {
					// ignored on purpose
				}
			}
		}

	}

}
