package dev.jobqueue.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.jobqueue.JobHandler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Bad configurations as a user meets them: a web application started with
 * {@link SpringApplicationBuilder}, every auto-configuration on, and the log it prints.
 * Each ends in Boot's "APPLICATION FAILED TO START" block that names the cause and what
 * to do. The blocks are written to {@code target/startup-failures.txt}, which is where
 * the README's "Things to note" copies them from.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureTests {

	private static final StringBuilder blocks = new StringBuilder();

	@TempDir
	Path dir;

	@AfterAll
	static void writeBlocks() throws IOException {
		Files.writeString(Path.of("target", "startup-failures.txt"), blocks);
	}

	@Test
	void aNegativeConcurrencyFailsAtBindingBeforeTheServerListensOrAnythingIsMigrated(CapturedOutput output) {
		Path file = this.dir.resolve("jobs.db");
		start(output, "jobqueue.worker.concurrency=-1", "jobqueue.datasource.url=jdbc:sqlite:" + file);
		assertThat(output).contains("Property: jobqueue.worker.concurrency")
			.contains("Value: \"-1\"")
			.contains("Reason: jobqueue.worker.concurrency must be at least 1")
			.contains("Update your application's configuration")
			.doesNotContain("Tomcat started");
		assertThat(file).doesNotExist();
	}

	@Test
	void aUrlNamingAFolderSaysSoWithThePathAndAFileToName(CapturedOutput output) throws IOException {
		Path folder = Files.createDirectories(this.dir.resolve("data"));
		start(output, "jobqueue.datasource.url=jdbc:sqlite:" + folder);
		assertThat(output)
			.contains("The job queue could not start: The queue database " + folder + " is a folder, not a file")
			.contains("Action:")
			.contains("Name a file in that folder, for example jdbc:sqlite:" + folder.resolve("jobs.db"));
		assertThat(folder).isEmptyDirectory();
	}

	@Test
	void aUrlOfADatabaseNoStoreServesNamesTheStoresThereAre(CapturedOutput output) {
		start(output, "jobqueue.datasource.url=jdbc:hsqldb:mem:jobs");
		assertThat(output).contains("The job queue could not start:").contains("jdbc:hsqldb:mem:jobs");
	}

	@Test
	void anApplicationDataSourceInAMissingFolderNamesTheFolderToCreate(CapturedOutput output) {
		Path file = this.dir.resolve("data").resolve("app.db");
		// The application has no Flyway of its own here; with one, Flyway meets the
		// missing folder first and says so in its own words.
		start(output, "spring.flyway.enabled=false", "spring.datasource.url=jdbc:sqlite:" + file,
				"spring.datasource.hikari.data-source-properties.journal_mode=WAL",
				"spring.datasource.hikari.data-source-properties.foreign_keys=true",
				"spring.datasource.hikari.data-source-properties.busy_timeout=5000",
				"spring.datasource.hikari.data-source-properties.transaction_mode=IMMEDIATE");
		assertThat(output).contains("the folder of the database file, " + file.getParent() + ", does not exist")
			.doesNotContain("deleted or moved");
		assertThat(file.getParent()).doesNotExist();
	}

	@Test
	void aMalformedRateLimitNamesTheHandlerThePropertyAndAValidExample(CapturedOutput output) {
		start(output,
				application("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("jobs.db"),
						"jobqueue.handlers.charge.rate-limit=100/")
					.sources(PaymentsConfiguration.class),
				"jobqueue.handlers.charge.rate-limit=100/ (handler: @JobHandler(value = \"charge\", rateLimit = "
						+ "\"100/1s\"))");
		assertThat(output)
			.contains("The job queue could not start: Invalid @JobHandler on bean 'payments' method "
					+ "Payments.charge(): jobqueue.handlers.charge.rate-limit \"100/\" is not a rate limit: it has "
					+ "no window after the '/'.")
			.contains("Action:")
			.contains("Write it as permits/window, for example \"100/1s\" (100 starts in any second)")
			.doesNotContain("Tomcat started");
	}

	@Test
	void aHandlerTimeoutThatIsNoDurationNamesTheHandlerTheAttributeAndHowToWriteIt(CapturedOutput output) {
		start(output, application("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("jobs.db"))
			.sources(ReportsConfiguration.class), "@JobHandler(value = \"report\", timeout = \"2 minutes\")");
		assertThat(output)
			.contains("The job queue could not start: Invalid @JobHandler on bean 'reports' method Reports.render(): "
					+ "timeout \"2 minutes\" is not a duration.")
			.contains("Action:")
			.contains("Write it in ISO-8601 (PT2M) or as a value such as 2m or 30s, or leave it empty for no limit.")
			.doesNotContain("Tomcat started");
	}

	@Test
	void aFiveFieldCronInPropertiesFailsAtBindingWithTheSixFieldExpression(CapturedOutput output) {
		Path file = this.dir.resolve("jobs.db");
		start(output, "jobqueue.datasource.url=jdbc:sqlite:" + file,
				"jobqueue.scheduling.schedules.nightly.type=export",
				"jobqueue.scheduling.schedules.nightly.cron=0 3 * * *");
		assertThat(output).contains("Property: jobqueue.scheduling.schedules[nightly].cron")
			.contains("Value: \"0 3 * * *\"")
			.contains("Reason: jobqueue.scheduling.schedules.nightly: '0 3 * * *' has 5 fields, as crontab writes "
					+ "them, but a Spring cron expression has 6, seconds first (second minute hour day-of-month month "
					+ "day-of-week). Write \"0 0 3 * * *\" for the same times")
			.contains("Update your application's configuration")
			.doesNotContain("IllegalStateException")
			.doesNotContain("Tomcat started");
		assertThat(file).doesNotExist();
	}

	@Test
	void anUnknownScheduleZoneFailsAtBindingNamingTheProperty(CapturedOutput output) {
		start(output, "jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("jobs.db"),
				"jobqueue.scheduling.schedules.nightly.type=export",
				"jobqueue.scheduling.schedules.nightly.cron=0 0 3 * * *",
				"jobqueue.scheduling.schedules.nightly.zone=Europe/Pariss");
		assertThat(output).contains("Property: jobqueue.scheduling.schedules.nightly.zone")
			.contains("Value: \"Europe/Pariss\"")
			.contains("Unknown time-zone ID: Europe/Pariss")
			.contains("Update your application's configuration")
			.doesNotContain("Tomcat started");
	}

	@Test
	void aQueueFolderUnderARegularFileSaysWhichFileIsInTheWay(CapturedOutput output) throws IOException {
		Path notes = Files.writeString(this.dir.resolve("notes.txt"), "not a folder");
		start(output, "jobqueue.datasource.url=jdbc:sqlite:" + notes.resolve("jobs.db"));
		assertThat(output)
			.contains("The job queue could not start: Could not create the folder " + notes
					+ " of the queue database jobs.db: a file named " + notes + " exists where a folder should be")
			.contains("Action:")
			.contains("set jobqueue.datasource.url to a file in a writable folder");
	}

	@Test
	void aMissingFolderIsCreatedAndSaidAndTheLocationIsLoggedOnce(CapturedOutput output) {
		Path file = this.dir.resolve("new-folder").resolve("jobs.db");
		try (var context = application("jobqueue.datasource.url=jdbc:sqlite:" + file).run()) {
			assertThat(file).exists();
		}
		assertThat(output).contains("Created the folder " + file.getParent() + " for the new queue database jobs.db");
		assertThat(output.toString().split("Job queue on SQLite: " + file, -1)).hasSize(2);
	}

	private SpringApplicationBuilder application(String... properties) {
		return new SpringApplicationBuilder(Application.class)
			.properties("server.port=0", "spring.main.banner-mode=off", "jobqueue.worker.auto-startup=false")
			.properties(properties);
	}

	private void start(CapturedOutput output, String... properties) {
		start(output, application(properties), String.join(" ", properties));
	}

	private void start(CapturedOutput output, SpringApplicationBuilder application, String label) {
		int before = output.length();
		assertThatException().isThrownBy(() -> application.run().close());
		String printed = output.toString().substring(before);
		int start = printed.indexOf("***************************\nAPPLICATION FAILED TO START");
		assertThat(start).as("the failure analysis in:%n%s", printed).isNotNegative();
		String block = printed.substring(start).strip();
		blocks.append(label).append("\n\n").append(block).append("\n\n");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

	@Configuration(proxyBeanMethods = false)
	static class PaymentsConfiguration {

		@Bean
		Payments payments() {
			return new Payments();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ReportsConfiguration {

		@Bean
		Reports reports() {
			return new Reports();
		}

	}

	static class Reports {

		@JobHandler(value = "report", timeout = "2 minutes")
		void render(String month) {
		}

	}

	static class Payments {

		@JobHandler(value = "charge", rateLimit = "100/1s")
		void charge(String customer) {
		}

	}

}
