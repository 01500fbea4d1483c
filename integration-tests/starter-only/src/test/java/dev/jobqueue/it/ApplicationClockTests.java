package dev.jobqueue.it;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.it.StarterOnlyApplication.Greeting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Clock bean of the application's own (frozen, as tests often do) leaves the queue's
 * timing alone.
 */
@SpringBootTest(properties = "jobqueue.datasource.url=jdbc:sqlite:clock/jobs.db")
class ApplicationClockTests {

	static final Instant FROZEN = Instant.parse("2001-01-01T00:00:00Z");

	@Autowired
	private JobQueue queue;

	@Autowired
	private Clock applicationClock;

	@Test
	void delayedJobsStillComeDue() {
		assertThat(this.applicationClock.instant()).isEqualTo(FROZEN);
		long id = this.queue.enqueue(JobRequest.of("greet", new Greeting("later")).delay(Duration.ofMillis(500)));
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.queue.find(id).orElseThrow().status() == JobStatus.SUCCEEDED);
		assertThat(this.queue.find(id).orElseThrow().createdAt()).isAfter(FROZEN);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class FrozenClock {

		@Bean
		Clock clock() {
			return Clock.fixed(FROZEN, ZoneOffset.UTC);
		}

	}

}
