package dev.jobqueue.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.jobqueue.JobHandler;

/**
 * A recurring report. The cron schedule fires once per tick across every process sharing
 * the file, and once (not once per missed tick) after downtime.
 */
@Component
public class ReportJobs {

	private static final Logger logger = LoggerFactory.getLogger(ReportJobs.class);

	private final ImageRepository images;

	public ReportJobs(ImageRepository images) {
		this.images = images;
	}

	/** What the report found. */
	public record Report(long images) {
	}

	@JobHandler(value = "images-report", cron = "0 * * * * *", globalConcurrency = 1)
	public Report report() {
		Report report = new Report(this.images.count());
		logger.info("Images so far: {}", report.images());
		return report;
	}

}
