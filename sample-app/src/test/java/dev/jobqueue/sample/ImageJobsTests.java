package dev.jobqueue.sample;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;
import dev.jobqueue.test.AutoConfigureJobQueue;
import dev.jobqueue.test.JobQueueTester;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The image jobs, tested the way the README shows: enqueue through the application's own
 * service, run the due jobs on the test thread, move the queue's clock past a retry
 * backoff. No sleeping, no file to manage.
 */
@SpringBootTest(properties = "sample.demo-traffic.enabled=false")
@AutoConfigureJobQueue
class ImageJobsTests {

	@Autowired
	ImageService imageService;

	@Autowired
	ImageRepository images;

	@Autowired
	JobQueue jobQueue;

	@Autowired
	JobQueueTester tester;

	@Autowired
	ScriptedModels models;

	@Test
	void aTaggerOutageIsRetriedAfterItsBackoff() {
		this.models.failTagging(1);
		ImageService.Upload upload = this.imageService.upload("cat-on-sofa", 1024, 768);
		long tagJob = upload.jobIds().get(0);

		List<Job> ran = this.tester.runDueJobs();

		assertThat(ran).extracting(Job::type).containsExactlyInAnyOrder("tag", "caption", "thumbnail");
		Job tag = this.jobQueue.find(tagJob).orElseThrow();
		assertThat(tag.status()).isEqualTo(JobStatus.PENDING);
		assertThat(tag.errorCode()).isEqualTo("DEPENDENCY:TAGGER_API");
		Image image = this.images.find(upload.imageId()).orElseThrow();
		assertThat(image.thumbnail()).isEqualTo("thumbs/" + upload.imageId() + "-128x96.jpg");
		assertThat(image.tags()).isNull();

		// The first retry waits at most jobqueue.retry.initial-backoff (2s in
		// application.properties).
		this.tester.advanceClock(Duration.ofSeconds(2));
		this.tester.runDueJobs();

		tag = this.jobQueue.find(tagJob).orElseThrow();
		assertThat(tag.status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(tag.attempts()).isEqualTo(2);
		assertThat(this.images.find(upload.imageId()).orElseThrow().tags()).isEqualTo("photo,cat");
	}

	@Test
	void anImpossibleImageFailsItsThumbnailOnceWithInvalidInput() {
		ImageService.Upload upload = this.imageService.upload("broken", 0, 100);
		long thumbnailJob = upload.jobIds().get(2);

		this.tester.runDueJobs();

		Job thumbnail = this.jobQueue.find(thumbnailJob).orElseThrow();
		assertThat(thumbnail.status()).isEqualTo(JobStatus.FAILED);
		assertThat(thumbnail.errorCode()).isEqualTo("INVALID_INPUT:DIMENSIONS");
		assertThat(thumbnail.attempts()).isEqualTo(1);
	}

	/** The models answer at once, and the tagger fails as often as the test says. */
	static class ScriptedModels extends ImageModels {

		private int taggingFailures;

		void failTagging(int times) {
			this.taggingFailures = times;
		}

		@Override
		public List<String> tag(String name) {
			if (this.taggingFailures > 0) {
				this.taggingFailures--;
				throw new TaggerUnavailable();
			}
			return List.of("photo", "cat");
		}

		@Override
		public long captionStepMillis() {
			return 0;
		}

		@Override
		public boolean captionerBusy() {
			return false;
		}

		@Override
		public String caption(String name) {
			return "A picture called '" + name + "'";
		}

	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Models {

		@Bean
		@Primary
		ScriptedModels scriptedModels() {
			return new ScriptedModels();
		}

	}

}
