package dev.jobqueue.sample;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.stereotype.Component;

import dev.jobqueue.JobErrorCode;

/**
 * The "ML" behind the image jobs, simulated: it takes a while and fails now and then, the
 * way a model server or an external API does, so the queue's retries and error codes have
 * something to show. Tests replace it with a bean of their own that answers at once and
 * fails when they say.
 */
@Component
public class ImageModels {

	/** The tagging service answered with an error; worth another try later. */
	@JobErrorCode("DEPENDENCY:TAGGER_API")
	public static class TaggerUnavailable extends RuntimeException {

		public TaggerUnavailable() {
			super("tagger answered 503 Service Unavailable");
		}

	}

	/** Tags for an image, from its name. */
	public List<String> tag(String name) throws InterruptedException {
		Thread.sleep(ThreadLocalRandom.current().nextInt(20, 200));
		if (ThreadLocalRandom.current().nextInt(100) < 20) {
			throw new TaggerUnavailable();
		}
		return List.of("photo", name.toLowerCase().contains("cat") ? "cat" : "landscape");
	}

	/**
	 * What a content scan finds: {@code clean}, or {@code unsafe} for an image whose name
	 * says so (the sample's stand-in for a moderation model).
	 */
	public String scan(String name) throws InterruptedException {
		Thread.sleep(ThreadLocalRandom.current().nextInt(20, 100));
		return name.toLowerCase().contains("unsafe") ? "unsafe" : "clean";
	}

	/** How long one step of captioning takes, in milliseconds. */
	public long captionStepMillis() {
		return ThreadLocalRandom.current().nextInt(50, 150);
	}

	/** Whether the captioning model is busy now (the job snoozes). */
	public boolean captionerBusy() {
		return ThreadLocalRandom.current().nextInt(100) < 10;
	}

	/** A caption, or an empty one when the model fails. */
	public String caption(String name) {
		return (ThreadLocalRandom.current().nextInt(100) < 10) ? "" : "A picture called '" + name + "'";
	}

}
