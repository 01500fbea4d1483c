package dev.jobqueue.sample;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

import dev.jobqueue.InvalidJobInputException;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;

/**
 * Work that runs as chains of jobs. Publishing an upload is scan → thumbnail → publish:
 * each step says what comes next with {@link JobContext#continueWith}, so the next step
 * exists only once the one before succeeded, and an image that fails its scan is never
 * published. Re-tagging the library is a fan-out: one {@code tag} job per image, and a
 * {@code tag-summary} that runs once all of them have finished.
 */
@Component
public class PublishingJobs {

	private static final Logger logger = LoggerFactory.getLogger(PublishingJobs.class);

	private final ImageRepository images;

	private final ImageModels models;

	public PublishingJobs(ImageRepository images, ImageModels models) {
		this.images = images;
		this.models = models;
	}

	/** The first step of publishing: the image to scan, with what its thumbnail needs. */
	public record ScanRequest(long imageId, String name, int width, int height) {
	}

	/** The last step of publishing. */
	public record Publication(long imageId) {
	}

	/** The join of a re-tagging: the images whose tags it sums up. */
	public record TagSummaryRequest(List<Long> imageIds) {
	}

	@JobHandler("scan")
	public String scan(ScanRequest request, JobContext context) throws InterruptedException {
		String verdict = this.models.scan(request.name());
		this.images.setScan(request.imageId(), verdict);
		if (!verdict.equals("clean")) {
			// Not retried, and the chain ends here: no thumbnail, nothing published.
			throw new InvalidJobInputException("UNSAFE_CONTENT",
					"image " + request.imageId() + " did not pass the content scan", null);
		}
		context.continueWith("thumbnail",
				new ImageJobs.ThumbnailRequest(request.imageId(), request.width(), request.height(), true));
		return verdict;
	}

	/**
	 * Two durable steps: the URL is written in the step's own transaction, together with
	 * the step's record (the queue shares the application's DataSource), so it is written
	 * once however often the job runs; the announcement goes outside the database, at
	 * least once, with a key a subscriber can drop repeats by.
	 */
	@JobHandler("publish")
	public String publish(Publication publication, JobContext context) {
		String url = "https://images.example.com/" + publication.imageId();
		context.transactionalStep("record-url", () -> this.images.setPublishedUrl(publication.imageId(), url));
		context.step("announce", () -> logger.info("Published image {} at {} (announcement {})", publication.imageId(),
				url, context.idempotencyKey("announce")));
		return url;
	}

	/**
	 * Counts the tags of the re-tagged images once every {@code tag} job of the fan-out
	 * has finished, however it ended (the join is enqueued with
	 * {@code DependencyPolicy.RUN}): images whose tagging failed are counted as untagged.
	 */
	@JobHandler("tag-summary")
	public Map<String, Integer> tagSummary(TagSummaryRequest request) {
		Map<String, Integer> counts = new TreeMap<>();
		for (String tags : this.images.tagsOf(request.imageIds())) {
			if (tags == null || tags.isBlank()) {
				counts.merge("(untagged)", 1, Integer::sum);
				continue;
			}
			for (String tag : tags.split(",")) {
				counts.merge(tag, 1, Integer::sum);
			}
		}
		return counts;
	}

}
