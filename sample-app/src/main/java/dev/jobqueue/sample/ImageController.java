package dev.jobqueue.sample;

import java.util.List;
import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import dev.jobqueue.FanOut;
import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;

/** Upload images and follow their jobs. */
@RestController
public class ImageController {

	private final ImageService service;

	private final ImageRepository images;

	private final JobQueue jobQueue;

	private final JobValues values;

	ImageController(ImageService service, ImageRepository images, JobQueue jobQueue, JobValues values) {
		this.service = service;
		this.images = images;
		this.jobQueue = jobQueue;
		this.values = values;
	}

	/**
	 * What a client uploads (a real service would take the bytes; the sample takes their
	 * description).
	 */
	public record UploadRequest(String name, int width, int height, Boolean publish) {

		public UploadRequest(String name, int width, int height) {
			this(name, width, height, null);
		}

	}

	/** Most images one re-tagging covers. */
	static final int MAX_RETAG = 1_000;

	/** Longest image name accepted. */
	static final int MAX_NAME_LENGTH = 200;

	/** Largest image accepted, in pixels (100 megapixels). */
	static final long MAX_PIXELS = 100_000_000L;

	/**
	 * Stores an upload and enqueues its jobs. The request is checked here, at the edge,
	 * so a bad one is a 400 or 413 that says what is wrong, not a constraint failure deep
	 * in the database.
	 */
	@PostMapping("/images")
	public ResponseEntity<ImageService.Upload> upload(@RequestBody UploadRequest request) {
		validate(request);
		return ResponseEntity.status(HttpStatus.ACCEPTED)
			.body(this.service.upload(request.name().strip(), request.width(), request.height(),
					Boolean.TRUE.equals(request.publish())));
	}

	/**
	 * Tags the {@code limit} most recent images again, then sums their tags up: a fan-out
	 * and its join, which {@code GET /chains/{chainId}} follows.
	 */
	@PostMapping("/images/retag")
	public ResponseEntity<FanOut> retag(@RequestParam(defaultValue = "100") int limit) {
		if (limit < 1 || limit > MAX_RETAG) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"'limit' must be between 1 and " + MAX_RETAG + ", got " + limit);
		}
		return ResponseEntity.status(HttpStatus.ACCEPTED).body(this.service.retag(limit));
	}

	private static void validate(UploadRequest request) {
		if (request.name() == null || request.name().isBlank()) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "'name' is missing: give the image a name");
		}
		if (request.name().length() > MAX_NAME_LENGTH) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"'name' is " + request.name().length() + " characters long; use at most " + MAX_NAME_LENGTH);
		}
		if (request.width() < 1 || request.height() < 1) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "'width' and 'height' must be at least 1 pixel, "
					+ "got " + request.width() + "x" + request.height());
		}
		long pixels = (long) request.width() * request.height();
		if (pixels > MAX_PIXELS) {
			throw new ResponseStatusException(HttpStatus.CONTENT_TOO_LARGE, "The image has " + pixels + " pixels ("
					+ request.width() + "x" + request.height() + "); at most " + MAX_PIXELS + " are accepted");
		}
	}

	@GetMapping("/images/{id}")
	public ResponseEntity<Image> image(@PathVariable long id) {
		return ResponseEntity.of(this.images.find(id));
	}

	@GetMapping("/images")
	public List<Long> recent() {
		return this.images.recentIds(20);
	}

	/** One job, its values as the values policy allows the caller. */
	@GetMapping("/jobs/{id}")
	public ResponseEntity<Job> job(@PathVariable long id, Authentication caller) {
		return ResponseEntity.of(this.jobQueue.find(id).map((job) -> this.values.view(job, caller)));
	}

	/** The jobs of a chain (a publishing, a re-tagging) in step order; 404 if none. */
	@GetMapping("/chains/{id}")
	public ResponseEntity<List<Job>> chain(@PathVariable long id, Authentication caller) {
		List<Job> steps = this.jobQueue.findChain(id);
		return steps.isEmpty() ? ResponseEntity.notFound().build() : ResponseEntity.ok(this.values.view(steps, caller));
	}

	@PostMapping("/jobs/{id}/cancel")
	public Map<String, Boolean> cancel(@PathVariable long id) {
		return Map.of("cancelled", this.jobQueue.cancel(id));
	}

	@PostMapping("/jobs/{id}/retry")
	public Map<String, Boolean> retry(@PathVariable long id) {
		return Map.of("retried", this.jobQueue.retry(id));
	}

}
