package dev.jobqueue.dashboard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application without Spring Security that turns the dashboard's actions on and opens
 * the endpoint's writes hears about it once each at start-up, with what to do.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(classes = CrossSiteBrowserTests.UnsecuredApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "jobqueue.worker.enabled=false")
@DirtiesContext
class DashboardStartupWarningTests {

	@DynamicPropertySource
	static void queueFile(DynamicPropertyRegistry registry) throws IOException {
		Path dir = Files.createTempDirectory("jobqueue-dashboard-warning");
		registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("queue.db"));
	}

	@Test
	void openActionsWithoutSpringSecurityAreWarnedAboutOnceEach(CapturedOutput output) {
		assertThat(output.getOut().split("its actions are on", -1)).hasSize(2);
		assertThat(output).contains("set jobqueue.dashboard.read-only=true");
		assertThat(output.getOut().split("its writes are open", -1)).hasSize(2);
		assertThat(output).contains("set management.endpoint.jobqueue.access=read-only");
	}

}
