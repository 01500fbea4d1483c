package dev.jobqueue.sample;

import java.time.Clock;
import java.util.List;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;

/**
 * Stores an upload and enqueues its jobs in one transaction: no image without jobs, no
 * jobs without image.
 */
@Service
public class ImageService {

	private final ImageRepository images;

	private final JobQueue jobQueue;

	private final Clock clock = Clock.systemUTC();

	public ImageService(ImageRepository images, JobQueue jobQueue) {
		this.images = images;
		this.jobQueue = jobQueue;
	}

	@Transactional
	public Upload upload(String name, int width, int height) {
		long id = this.images.insert(name, width, height, this.clock.instant());
		ImageJobs.ImageRef image = new ImageJobs.ImageRef(id, name);
		List<Long> jobs = this.jobQueue
			.enqueueAll(List.of(JobRequest.of("tag", image), JobRequest.of("caption", image).priority(-1),
					JobRequest.of("thumbnail", new ImageJobs.ThumbnailRequest(id, width, height))
						.priority(5)
						.dedupKey("thumbnail-" + id)));
		return new Upload(id, jobs);
	}

	/** What an upload created. */
	public record Upload(long imageId, List<Long> jobIds) {
	}

}
