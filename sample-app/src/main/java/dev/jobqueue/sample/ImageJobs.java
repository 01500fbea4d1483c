package dev.jobqueue.sample;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.jobqueue.InvalidJobInputException;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobErrorCode;
import dev.jobqueue.JobHandler;

/**
 * The background work of an upload. The "ML" is simulated: it takes a while and fails now and then, the way
 * a model server or an external API does, so the queue's retries and error codes have something to show.
 */
@Component
public class ImageJobs {

	private static final Logger logger = LoggerFactory.getLogger(ImageJobs.class);

	private final ImageRepository images;

	public ImageJobs(ImageRepository images) {
		this.images = images;
	}

	/** Which image a job is about. */
	public record ImageRef(long imageId, String name) {
	}

	/** What a thumbnail job needs. */
	public record ThumbnailRequest(long imageId, int width, int height) {
	}

	/** The tagging service answered with an error; worth another try later. */
	@JobErrorCode("DEPENDENCY:TAGGER_API")
	static class TaggerUnavailable extends RuntimeException {

		TaggerUnavailable() {
			super("tagger answered 503 Service Unavailable");
		}

	}

	@JobHandler("tag")
	public List<String> tag(ImageRef image) throws InterruptedException {
		Thread.sleep(ThreadLocalRandom.current().nextInt(20, 200));
		if (ThreadLocalRandom.current().nextInt(100) < 20) {
			throw new TaggerUnavailable();
		}
		List<String> tags = List.of("photo", image.name().toLowerCase().contains("cat") ? "cat" : "landscape");
		this.images.setTags(image.imageId(), String.join(",", tags));
		return tags;
	}

	@JobHandler(value = "caption", maxAttempts = 3, timeout = "PT20S", concurrency = 2)
	public String caption(ImageRef image, JobContext context) throws InterruptedException {
		if (ThreadLocalRandom.current().nextInt(100) < 10 && context.attempt() == 1) {
			context.snooze(Duration.ofSeconds(5)); // the captioning model is busy: come back later, no attempt used
		}
		for (int step = 0; step < 5; step++) {
			Thread.sleep(ThreadLocalRandom.current().nextInt(50, 150));
			if (!context.heartbeat()) {
				logger.info("caption of image {} cancelled", image.imageId());
				return null;
			}
		}
		if (ThreadLocalRandom.current().nextInt(100) < 10) {
			throw new IllegalStateException("captioning model returned an empty caption");
		}
		String caption = "A picture called '" + image.name() + "'";
		this.images.setCaption(image.imageId(), caption);
		return caption;
	}

	/** What an archive job packs. */
	public record ArchiveRequest(int images) {
	}

	/**
	 * Packs images into an archive, one at a time: a long job that reports how far it is, so the dashboard draws
	 * its progress bar moving.
	 */
	@JobHandler(value = "archive", timeout = "PT5M")
	public String archive(ArchiveRequest request, JobContext context) throws InterruptedException {
		for (int packed = 0; packed < request.images(); packed++) {
			if (!context.progress(packed, request.images(), "packing image " + (packed + 1))) {
				logger.info("archive job {} cancelled after {} images", context.jobId(), packed);
				return null;
			}
			Thread.sleep(250);
		}
		context.progress(request.images(), request.images(), "done");
		return "archives/" + context.jobId() + ".zip";
	}

	@JobHandler(value = "thumbnail", repeatable = false)
	public String thumbnail(ThumbnailRequest request) {
		if (request.width() <= 0 || request.height() <= 0) {
			throw new InvalidJobInputException("DIMENSIONS",
					"image " + request.imageId() + " is " + request.width() + "x" + request.height(), null);
		}
		String thumbnail = "thumbs/" + request.imageId() + "-128x" + (128 * request.height() / request.width()) + ".jpg";
		this.images.setThumbnail(request.imageId(), thumbnail);
		return thumbnail;
	}

}
