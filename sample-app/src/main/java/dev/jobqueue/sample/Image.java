package dev.jobqueue.sample;

import java.time.Instant;

/** An uploaded image and what the background jobs found out about it. */
public record Image(long id, String name, int width, int height, String tags, String caption, String thumbnail,
		Instant uploadedAt, String scan, String publishedUrl) {

}
