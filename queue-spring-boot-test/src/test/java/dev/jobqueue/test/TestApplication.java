package dev.jobqueue.test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;

/** An application with handlers as users write them. */
@SpringBootConfiguration
@EnableAutoConfiguration
class TestApplication {

	/**
	 * The application's own clock, for its own use: the queue's timing must not depend on
	 * it.
	 */
	@Bean
	Clock applicationClock() {
		return Clock.fixed(Instant.parse("2000-01-01T00:00:00Z"), ZoneOffset.UTC);
	}

	@Bean
	Handlers handlers(JobQueue jobQueue) {
		return new Handlers(jobQueue);
	}

	record Greeting(String name) {
	}

	static class Handlers {

		final List<Thread> threads = new CopyOnWriteArrayList<>();

		final List<String> hourlyRuns = new ArrayList<>();

		private final JobQueue jobQueue;

		Handlers(JobQueue jobQueue) {
			this.jobQueue = jobQueue;
		}

		@JobHandler("greet")
		String greet(Greeting greeting) {
			this.threads.add(Thread.currentThread());
			return "Hello, " + greeting.name();
		}

		@JobHandler(value = "flaky", maxAttempts = 3)
		String flaky(Greeting greeting, JobContext context) {
			if (context.attempt() == 1) {
				throw new IllegalStateException("upstream answered 503");
			}
			return "second time lucky";
		}

		@JobHandler(value = "order", maxAttempts = 3)
		String order(Greeting greeting, JobContext context) {
			String receipt = context.step("charge", String.class, () -> "receipt for " + greeting.name());
			context.step("send-receipt", () -> {
			});
			if (context.attempt() == 1) {
				throw new IllegalStateException("the ledger is down");
			}
			return context.step("ledger", String.class, () -> "booked " + receipt);
		}

		@JobHandler("chain")
		void chain(Greeting greeting) {
			this.jobQueue.enqueue("greet", greeting);
		}

		@JobHandler(value = "hourly", cron = "0 0 * * * *", zone = "UTC")
		void hourly() {
			this.hourlyRuns.add("run");
		}

	}

}
