package dev.jobqueue.actuate;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.autoconfigure.JobQueueClock;
import dev.jobqueue.testing.MutableClock;

/**
 * A minimal web application with actuator and the queue, on the file of
 * {@code jobqueue.datasource.url}, with a clock the tests move. No application
 * DataSource: the queue has its own file.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
public class ObservabilityTestApplication {

	/** The instant every seeded time is relative to. */
	public static final String NOW = "2026-01-01T12:00:00Z";

	@Bean
	MutableClock queueClock() {
		return MutableClock.startingAt(NOW);
	}

	@Bean
	JobQueueClock jobQueueClock(MutableClock queueClock) {
		return new JobQueueClock(queueClock);
	}

}
