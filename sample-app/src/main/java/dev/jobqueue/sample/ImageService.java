package dev.jobqueue.sample;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.FanOut;
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
		return upload(name, width, height, false);
	}

	/**
	 * Stores an upload with its tag and caption jobs and, for the thumbnail, either a job
	 * of its own or, when the image is to be published, the first step of the publishing
	 * chain: scan → thumbnail → publish, each step enqueued by the one before once it
	 * succeeded.
	 */
	@Transactional
	public Upload upload(String name, int width, int height, boolean publish) {
		long id = this.images.insert(name, width, height, this.clock.instant());
		ImageJobs.ImageRef image = new ImageJobs.ImageRef(id, name);
		JobRequest last = publish
				? JobRequest.of("scan", new PublishingJobs.ScanRequest(id, name, width, height)).priority(5)
				: JobRequest.of("thumbnail", new ImageJobs.ThumbnailRequest(id, width, height))
					.priority(5)
					.dedupKey("thumbnail-" + id);
		List<Long> jobs = this.jobQueue
			.enqueueAll(List.of(JobRequest.of("tag", image), JobRequest.of("caption", image).priority(-1), last));
		return new Upload(id, jobs, publish ? jobs.get(2) : null);
	}

	/**
	 * Tags the most recent images again (after a model upgrade, say): one {@code tag} job
	 * per image and a {@code tag-summary} that runs once they have all finished, in one
	 * transaction. The summary runs even when some tagging failed, and counts those
	 * images as untagged.
	 */
	public FanOut retag(int limit) {
		List<Long> ids = this.images.recentIds(limit);
		List<JobRequest> children = new ArrayList<>(ids.size());
		for (long id : ids) {
			String name = this.images.find(id).map(Image::name).orElse("");
			children.add(JobRequest.of("tag", new ImageJobs.ImageRef(id, name)));
		}
		return this.jobQueue.enqueueFanOut(children,
				JobRequest.of("tag-summary", new PublishingJobs.TagSummaryRequest(ids))
					.onDependencyFailure(DependencyPolicy.RUN));
	}

	/**
	 * What an upload created.
	 *
	 * @param chainId the publishing chain (its first step, the scan), or {@code null}
	 * when the image is not published
	 */
	public record Upload(long imageId, List<Long> jobIds, Long chainId) {
	}

}
