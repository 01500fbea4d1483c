package dev.jobqueue.sample;

import java.time.Duration;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import dev.jobqueue.InvalidJobInputException;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;

/**
 * The background work of an upload. The "ML" it calls is simulated ({@link ImageModels}).
 */
@Component
public class ImageJobs {

	private static final Logger logger = LoggerFactory.getLogger(ImageJobs.class);

	private final ImageRepository images;

	private final ImageModels models;

	public ImageJobs(ImageRepository images, ImageModels models) {
		this.images = images;
		this.models = models;
	}

	/** Which image a job is about. */
	public record ImageRef(long imageId, String name) {
	}

	/**
	 * What a thumbnail job needs.
	 *
	 * @param publish whether the image is being published: then the thumbnail is a step
	 * of the publishing chain and continues with {@code publish}. Null (as in jobs
	 * enqueued before publishing existed) is false.
	 */
	public record ThumbnailRequest(long imageId, int width, int height, Boolean publish) {

		public ThumbnailRequest(long imageId, int width, int height) {
			this(imageId, width, height, null);
		}

	}

	@JobHandler("tag")
	public List<String> tag(ImageRef image) throws InterruptedException {
		List<String> tags = this.models.tag(image.name());
		this.images.setTags(image.imageId(), String.join(",", tags));
		return tags;
	}

	@JobHandler(value = "caption", maxAttempts = 3, timeout = "PT20S", concurrency = 2)
	public String caption(ImageRef image, JobContext context) throws InterruptedException {
		if (context.attempt() == 1 && this.models.captionerBusy()) {
			context.snooze(Duration.ofSeconds(5)); // the captioning model is busy: come
													// back later, no attempt used
		}
		for (int step = 0; step < 5; step++) {
			Thread.sleep(this.models.captionStepMillis());
			if (!context.heartbeat()) {
				logger.info("caption of image {} cancelled", image.imageId());
				return null;
			}
		}
		String caption = this.models.caption(image.name());
		if (caption.isEmpty()) {
			throw new IllegalStateException("captioning model returned an empty caption");
		}
		this.images.setCaption(image.imageId(), caption);
		return caption;
	}

	/** What an archive job packs. */
	public record ArchiveRequest(int images) {
	}

	/**
	 * Packs images into an archive, one at a time: a long job that reports how far it is,
	 * so the dashboard draws its progress bar moving.
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
	public String thumbnail(ThumbnailRequest request, JobContext context) {
		if (request.width() <= 0 || request.height() <= 0) {
			throw new InvalidJobInputException("DIMENSIONS",
					"image " + request.imageId() + " is " + request.width() + "x" + request.height(), null);
		}
		String thumbnail = "thumbs/" + request.imageId() + "-128x" + (128 * request.height() / request.width())
				+ ".jpg";
		this.images.setThumbnail(request.imageId(), thumbnail);
		if (Boolean.TRUE.equals(request.publish())) {
			// The next step of the publishing chain: created only if this run succeeds.
			context.continueWith("publish", new PublishingJobs.Publication(request.imageId()));
		}
		return thumbnail;
	}

}
