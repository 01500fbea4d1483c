package dev.jobqueue.sample;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import dev.jobqueue.FanOut;
import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;
import dev.jobqueue.JobStep;
import dev.jobqueue.core.store.JobStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * The sample's chains over HTTP with the real worker: an upload to publish goes scan →
 * thumbnail → publish, each step created by the one before once it succeeded; an image
 * that fails its scan is never published; a re-tagging fans out one tag job per image and
 * sums the tags up once the last of them has finished.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.demo-traffic.enabled=false", "jobqueue.worker.poll-interval=200ms",
				"spring.security.user.password=" + PublishingChainTests.OPERATOR_PASSWORD })
@Import(PublishingChainTests.Models.class)
@DirtiesContext
class PublishingChainTests {

	static final String OPERATOR_PASSWORD = "publishing-test-operator";

	private static final Duration WAIT = Duration.ofSeconds(30);

	@TempDir
	static Path dataDir;

	@DynamicPropertySource
	static void dataDirectory(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> "jdbc:sqlite:" + dataDir.resolve("sample.db"));
	}

	@LocalServerPort
	int port;

	@Autowired
	JobQueue jobQueue;

	@Autowired
	ImageRepository images;

	@Autowired
	JobStore jobStore;

	@Test
	void anUploadToPublishIsScannedThumbnailedAndPublishedInThatOrder() {
		ImageService.Upload upload = upload("harbour", true);
		assertThat(upload.chainId()).isEqualTo(upload.jobIds().get(2));

		await().atMost(WAIT).until(() -> {
			List<Job> steps = chain(upload.chainId());
			return steps.size() == 3 && steps.stream().allMatch((step) -> step.status() == JobStatus.SUCCEEDED);
		});
		List<Job> steps = chain(upload.chainId());
		assertThat(steps).extracting(Job::type).containsExactly("scan", "thumbnail", "publish");
		assertThat(steps).extracting(Job::chainIndex).containsExactly(0, 1, 2);
		assertThat(steps).extracting(Job::chainId).containsOnly(upload.chainId());
		// Each step was created only once the one before had succeeded.
		for (int i = 1; i < steps.size(); i++) {
			assertThat(steps.get(i).createdAt()).isAfterOrEqualTo(steps.get(i - 1).finishedAt());
		}
		Image image = this.images.find(upload.imageId()).orElseThrow();
		assertThat(image.scan()).isEqualTo("clean");
		assertThat(image.thumbnail()).isEqualTo("thumbs/" + upload.imageId() + "-128x96.jpg");
		assertThat(image.publishedUrl()).isEqualTo("https://images.example.com/" + upload.imageId());
		// The publish job's durable steps, recorded in order by its one run.
		assertThat(this.jobStore.steps(steps.get(2).id())).extracting(JobStep::name, JobStep::run)
			.containsExactly(tuple("record-url", 1), tuple("announce", 1));
	}

	@Test
	void anImageThatFailsItsScanIsNeverPublished() {
		ImageService.Upload upload = upload("unsafe-meme", true);
		await().atMost(WAIT)
			.until(() -> this.jobQueue.find(upload.chainId()).orElseThrow().status() == JobStatus.FAILED);
		Job scan = this.jobQueue.find(upload.chainId()).orElseThrow();
		assertThat(scan.errorCode()).isEqualTo("INVALID_INPUT:UNSAFE_CONTENT");
		// The scan became the first step of a chain only by succeeding with a next step:
		// this one is no chain at all.
		assertThat(scan.chainId()).isNull();
		int chain = client().get()
			.uri("/chains/" + upload.chainId())
			.exchange((request, response) -> response.getStatusCode().value());
		assertThat(chain).isEqualTo(404);
		Image image = this.images.find(upload.imageId()).orElseThrow();
		assertThat(image.scan()).isEqualTo("unsafe");
		assertThat(image.thumbnail()).isNull();
		assertThat(image.publishedUrl()).isNull();
	}

	@Test
	void anUploadNotToPublishKeepsItsOwnThumbnailJob() {
		ImageService.Upload upload = upload("alps", false);
		assertThat(upload.chainId()).isNull();
		long thumbnail = upload.jobIds().get(2);
		await().atMost(WAIT).until(() -> this.jobQueue.find(thumbnail).orElseThrow().status() == JobStatus.SUCCEEDED);
		assertThat(this.jobQueue.find(thumbnail).orElseThrow().type()).isEqualTo("thumbnail");
		assertThat(this.jobQueue.find(thumbnail).orElseThrow().chainId()).isNull();
		assertThat(this.images.find(upload.imageId()).orElseThrow().publishedUrl()).isNull();
	}

	@Test
	void aRetaggingSumsTheTagsUpAfterTheLastTagJob() {
		List<Long> imageIds = List.of(upload("cat-in-box", false).imageId(), upload("forest", false).imageId(),
				upload("cat-on-sofa", false).imageId());
		FanOut fanOut = client().post().uri("/images/retag?limit=3").retrieve().body(FanOut.class);
		assertThat(fanOut.childIds()).hasSize(3);

		await().atMost(WAIT)
			.until(() -> this.jobQueue.find(fanOut.joinId()).orElseThrow().status() == JobStatus.SUCCEEDED);
		List<Job> steps = chain(fanOut.chainId());
		assertThat(steps).hasSize(4);
		Job join = steps.get(3);
		assertThat(join.id()).isEqualTo(fanOut.joinId());
		assertThat(join.type()).isEqualTo("tag-summary");
		for (Job child : steps.subList(0, 3)) {
			assertThat(child.type()).isEqualTo("tag");
			assertThat(imageIds).contains(imageIdOf(child));
			assertThat(join.startedAt()).isAfterOrEqualTo(child.finishedAt());
		}
		assertThat(join.result()).isEqualTo("{\"cat\":3,\"photo\":3}");

		int refused = client().post()
			.uri("/images/retag?limit=0")
			.exchange((request, response) -> response.getStatusCode().value());
		assertThat(refused).isEqualTo(400);
	}

	/** The image a tag job is about, from its payload ({"imageId":N,...}). */
	private static long imageIdOf(Job tagJob) {
		Matcher id = Pattern.compile("\"imageId\":(\\d+)").matcher(tagJob.payload());
		assertThat(id.find()).as(tagJob.payload()).isTrue();
		return Long.parseLong(id.group(1));
	}

	private ImageService.Upload upload(String name, boolean publish) {
		return client().post()
			.uri("/images")
			.body(new ImageController.UploadRequest(name, 1024, 768, publish))
			.header("Content-Type", "application/json")
			.retrieve()
			.body(ImageService.Upload.class);
	}

	private List<Job> chain(long chainId) {
		return List.of(client().get().uri("/chains/" + chainId).retrieve().body(Job[].class));
	}

	/** As the operator: the sample's job and chain reads are behind its login. */
	private RestClient client() {
		return RestClient.builder()
			.baseUrl("http://localhost:" + this.port)
			.defaultHeaders((headers) -> headers.setBasicAuth("operator", OPERATOR_PASSWORD))
			.build();
	}

	/**
	 * Models that answer at once and never fail, so the chains' order is all that is
	 * tested.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class Models {

		@Bean
		@Primary
		ImageJobsTests.ScriptedModels scriptedModels() {
			return new ImageJobsTests.ScriptedModels();
		}

	}

}
