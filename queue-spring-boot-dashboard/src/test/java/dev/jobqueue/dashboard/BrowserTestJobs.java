package dev.jobqueue.dashboard;

import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobErrorCode;
import dev.jobqueue.JobHandler;

/**
 * The jobs the browser tests look at: an export that fails while {@link #failing} is set,
 * a long archive that reports its progress, a chain of three steps (scan → thumbnail →
 * publish, each continued by the one before) and a nightly schedule. Jobs of type
 * {@value #HELD} have no handler: they stay pending until cancelled.
 */
@TestConfiguration(proxyBeanMethods = false)
class BrowserTestJobs {

	static final String HELD = "held";

	@Bean
	Exports exports() {
		return new Exports();
	}

	@Bean
	LongJobs longJobs() {
		return new LongJobs();
	}

	/** What an export job gets. */
	record ExportRequest(String name) {
	}

	/** What an archive job packs. */
	record ArchiveRequest(int images) {
	}

	@JobErrorCode("DEPENDENCY:EXPORT_API")
	static class ExportServiceDown extends RuntimeException {

		ExportServiceDown() {
			super("export service answered 503 Service Unavailable");
		}

	}

	static class Exports {

		final AtomicBoolean failing = new AtomicBoolean();

		/**
		 * Renders the export as a durable step, then uploads it: a failed upload keeps
		 * the rendering for the retry.
		 */
		@JobHandler("export")
		String export(ExportRequest request, JobContext context) {
			context.step("render", String.class, () -> "rendered " + request.name());
			if (this.failing.get()) {
				throw new ExportServiceDown();
			}
			return "exported " + request.name();
		}

	}

	static class LongJobs {

		/**
		 * Packs images one at a time, reporting how far it is, so the progress bar moves
		 * while a test watches.
		 */
		@JobHandler(value = "archive", timeout = "PT5M")
		String archive(ArchiveRequest request, JobContext context) throws InterruptedException {
			for (int packed = 0; packed < request.images(); packed++) {
				if (!context.progress(packed, request.images(), "packing image " + (packed + 1))) {
					return null;
				}
				Thread.sleep(250);
			}
			context.progress(request.images(), request.images(), "done");
			return "archives/" + context.jobId() + ".zip";
		}

		@JobHandler("scan")
		String scan(String image, JobContext context) {
			context.continueWith("thumbnail", image);
			return "clean";
		}

		@JobHandler("thumbnail")
		String thumbnail(String image, JobContext context) {
			context.continueWith("publish", image);
			return "thumbs/" + image + ".jpg";
		}

		@JobHandler("publish")
		String publish(String image) {
			return "https://images.example.com/" + image;
		}

		@JobHandler(value = "nightly-report", cron = "0 0 3 * * *")
		String nightlyReport() {
			return "reported";
		}

	}

}
