package dev.jobqueue.sample;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "sample.demo-traffic.enabled=false")
// Closed after the class, not by a JVM shutdown hook: no context (web server, worker,
// housekeeping) is left
// for the test JVM's exit to stop, and a slow close shows here rather than as a killed
// fork.
@DirtiesContext
class SampleApplicationTests {

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

	@Test
	void anUploadRunsItsThumbnailJobAndTheActuatorAnswers() {
		RestClient client = RestClient.create("http://localhost:" + this.port);
		ImageService.Upload upload = client.post()
			.uri("/images")
			.body(new ImageController.UploadRequest("cat-on-sofa", 1024, 768))
			.header("Content-Type", "application/json")
			.retrieve()
			.body(ImageService.Upload.class);
		assertThat(upload.jobIds()).hasSize(3);
		long thumbnailJob = upload.jobIds().get(2);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.jobQueue.find(thumbnailJob).orElseThrow().status() == JobStatus.SUCCEEDED);
		assertThat(this.images.find(upload.imageId()).orElseThrow().thumbnail())
			.isEqualTo("thumbs/" + upload.imageId() + "-128x96.jpg");
		String health = client.get().uri("/actuator/health").retrieve().body(String.class);
		assertThat(health).contains("\"status\":\"UP\"");
	}

	@Test
	void anImpossibleImageFailsItsThumbnailOnceWithInvalidInput() {
		ImageService.Upload upload = new ImageService(this.images, this.jobQueue).upload("broken", 0, 100);
		long thumbnailJob = upload.jobIds().get(2);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.jobQueue.find(thumbnailJob).orElseThrow().status() == JobStatus.FAILED);
		assertThat(this.jobQueue.find(thumbnailJob).orElseThrow().errorCode()).isEqualTo("INVALID_INPUT:DIMENSIONS");
		assertThat(this.jobQueue.find(thumbnailJob).orElseThrow().attempts()).isEqualTo(1);
	}

}
