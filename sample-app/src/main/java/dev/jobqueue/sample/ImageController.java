package dev.jobqueue.sample;

import java.util.List;
import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;

/** Upload images and follow their jobs. */
@RestController
public class ImageController {

	private final ImageService service;

	private final ImageRepository images;

	private final JobQueue jobQueue;

	public ImageController(ImageService service, ImageRepository images, JobQueue jobQueue) {
		this.service = service;
		this.images = images;
		this.jobQueue = jobQueue;
	}

	/** What a client uploads (a real service would take the bytes; the sample takes their description). */
	public record UploadRequest(String name, int width, int height) {
	}

	@PostMapping("/images")
	public ResponseEntity<ImageService.Upload> upload(@RequestBody UploadRequest request) {
		return ResponseEntity.status(HttpStatus.ACCEPTED)
			.body(this.service.upload(request.name(), request.width(), request.height()));
	}

	@GetMapping("/images/{id}")
	public ResponseEntity<Image> image(@PathVariable long id) {
		return ResponseEntity.of(this.images.find(id));
	}

	@GetMapping("/images")
	public List<Long> recent() {
		return this.images.recentIds(20);
	}

	@GetMapping("/jobs/{id}")
	public ResponseEntity<Job> job(@PathVariable long id) {
		return ResponseEntity.of(this.jobQueue.find(id));
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
