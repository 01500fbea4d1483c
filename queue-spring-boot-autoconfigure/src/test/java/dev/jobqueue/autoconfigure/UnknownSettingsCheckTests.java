package dev.jobqueue.autoconfigure;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A misspelt {@code jobqueue.*} setting is named at start-up with the nearest known one,
 * instead of being ignored without a word; settings below a map take any key, followed by
 * a property of the map's values where those are objects.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnknownSettingsCheckTests {

	@TempDir
	Path dir;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class))
		.withPropertyValues("jobqueue.worker.enabled=false");

	@Test
	void aMisspeltSettingIsNamedWithTheNearestKnownOne(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("jobs.db"),
					"jobqueue.datasource.pool-sise=4", "jobqueue.worker.concurency=4", "jobqueue.no-such-thing=1")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output)
			.contains("Unknown job queue setting jobqueue.datasource.pool-sise, ignored: did you mean "
					+ "jobqueue.datasource.pool-size?")
			.contains("Unknown job queue setting jobqueue.worker.concurency, ignored: did you mean "
					+ "jobqueue.worker.concurrency?")
			.contains("Unknown job queue setting jobqueue.no-such-thing, ignored: The settings are listed");
	}

	@Test
	void knownSettingsAndKeysBelowMapsPassWithoutAWord(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("jobs.db"),
					"jobqueue.datasource.poolSize=4", "jobqueue.retention.per-type.report=7d",
					"jobqueue.scheduling.schedules.nightly.type=report",
					"jobqueue.scheduling.schedules.nightly.cron=0 0 3 * * *",
					"jobqueue.scheduling.schedules.nightly.payload.region=eu")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("Unknown job queue setting");
	}

	@Test
	void belowAMapOfObjectsOnlyTheirPropertiesAreKnown(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("jobs.db"),
					"jobqueue.handlers.charge.rate-limit=100/1s", "jobqueue.handlers.charge.keyRateLimit=10/1m",
					"jobqueue.handlers[mail.send].key-concurrency=1", "jobqueue.handlers.sendSms.ordered=true",
					"jobqueue.handlers.sendSms.block-on-failure=false", "jobqueue.handlers.charge.rate-limt=100/1s",
					"jobqueue.handlers.mail.send.rate-limit=10/1s", "jobqueue.scheduling.schedules.nightly.cronn=x")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output)
			.contains("Unknown job queue setting jobqueue.handlers.charge.rate-limt, ignored: did you mean "
					+ "jobqueue.handlers.charge.rate-limit?")
			.contains("Unknown job queue setting jobqueue.handlers.mail.send.rate-limit, ignored: did you mean "
					+ "jobqueue.handlers[mail.send].rate-limit?")
			.contains("Unknown job queue setting jobqueue.scheduling.schedules.nightly.cronn, ignored: did you mean "
					+ "jobqueue.scheduling.schedules.nightly.cron?");
		assertThat(output.toString().lines().filter((line) -> line.contains("Unknown job queue setting"))).hasSize(3);
	}

	@Test
	void aNameInTheMetadataThatBootCannotBindIsLeftOutInsteadOfFailingTheStart() throws Exception {
		Path metadata = this.dir.resolve("META-INF/spring-configuration-metadata.json");
		Files.createDirectories(metadata.getParent());
		Files.writeString(metadata, """
				{"properties": [
					{"name": "jobqueue.worker.poolSize", "type": "java.lang.Integer"},
					{"name": "jobqueue.worker.concurrency", "type": "java.lang.Integer"}
				]}
				""");
		MockEnvironment environment = new MockEnvironment().withProperty("jobqueue.worker.concurency", "4")
			.withProperty("jobqueue.worker.concurrency", "4");
		try (URLClassLoader loader = new URLClassLoader(new URL[] { this.dir.toUri().toURL() }, null)) {
			assertThat(new UnknownSettingsCheck(environment, loader).unknown()).singleElement()
				.asString()
				.contains("jobqueue.worker.concurency, ignored: did you mean jobqueue.worker.concurrency?");
		}
	}

}
