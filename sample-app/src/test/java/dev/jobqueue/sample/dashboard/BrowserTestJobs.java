package dev.jobqueue.sample.dashboard;

import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.JobErrorCode;
import dev.jobqueue.JobHandler;

/**
 * A job the browser tests control: it fails while {@link #failing} is set, and succeeds
 * otherwise.
 */
@TestConfiguration(proxyBeanMethods = false)
class BrowserTestJobs {

	@Bean
	Exports exports() {
		return new Exports();
	}

	/** What an export job gets. */
	record ExportRequest(String name) {
	}

	@JobErrorCode("DEPENDENCY:EXPORT_API")
	static class ExportServiceDown extends RuntimeException {

		ExportServiceDown() {
			super("export service answered 503 Service Unavailable");
		}

	}

	static class Exports {

		final AtomicBoolean failing = new AtomicBoolean();

		@JobHandler("export")
		String export(ExportRequest request) {
			if (this.failing.get()) {
				throw new ExportServiceDown();
			}
			return "exported " + request.name();
		}

	}

}
