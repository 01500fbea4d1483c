package dev.jobqueue.autoconfigure.actuate;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.jobqueue.JobQueue;
import dev.jobqueue.actuate.JobDetailView;
import dev.jobqueue.actuate.JobView;
import dev.jobqueue.actuate.QueueEndpoint;
import dev.jobqueue.actuate.QueueReport;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint takes the settings it shows as values the auto-configuration reads from
 * {@code jobqueue.*}: every one of them, set away from its default, arrives where the
 * endpoint shows it.
 */
class QueueEndpointAutoConfigurationTests {

	private static final String WRITES_OPEN = "its writes are open";

	@TempDir
	Path dir;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(QueueAutoConfiguration.class, QueueEndpointAutoConfiguration.class))
		.withPropertyValues("jobqueue.worker.enabled=false", "spring.jmx.enabled=true",
				"management.endpoints.jmx.exposure.include=jobqueue",
				"management.endpoint.jobqueue.show-values=always");

	@Test
	void showsTheConfiguredRetentionStuckAfterAndPayloadPreview() {
		this.runner
			.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db"),
					"jobqueue.retention.enabled=false", "jobqueue.retention.succeeded=2d",
					"jobqueue.retention.failed=3d", "jobqueue.retention.cancelled=4d",
					"jobqueue.retention.per-type.email=5d", "jobqueue.retention.per-type.audit=6d",
					"jobqueue.retention.batch-size=123", "jobqueue.retention.interval=7m",
					"jobqueue.observability.stuck-after=8m", "jobqueue.observability.payload-preview=4")
			.run((context) -> {
				QueueEndpoint endpoint = context.getBean(QueueEndpoint.class);
				QueueReport.Retention retention = endpoint.queue().retention();
				assertThat(retention.enabled()).isFalse();
				assertThat(retention.succeeded()).isEqualTo("PT48H");
				assertThat(retention.failed()).isEqualTo("PT72H");
				assertThat(retention.cancelled()).isEqualTo("PT96H");
				assertThat(retention.perType()).containsExactly(Map.entry("email", "PT120H"),
						Map.entry("audit", "PT144H"));
				assertThat(retention.batchSize()).isEqualTo(123);
				assertThat(retention.interval()).isEqualTo("PT7M");
				assertThat(endpoint.queue().stuck().after()).isEqualTo("PT8M");

				long id = context.getBean(JobQueue.class).enqueue("email", "abcdefghij");
				JobDetailView job = (JobDetailView) endpoint.jobs(String.valueOf(id), null, null, null, null);
				assertThat(job.payload().preview()).hasSize(4);
				assertThat(job.payload().truncated()).isTrue();
			});
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void warnsOnceWhenWritesAreOpenAndNoSpringSecurityGuardsThem(CapturedOutput output) {
		ApplicationContextRunner withAccessResolver = this.runner
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class))
			.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db"));
		withAccessResolver.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain(WRITES_OPEN);
		withAccessResolver.withPropertyValues("management.endpoint.jobqueue.access=UNRESTRICTED")
			.withBean("springSecurityFilterChain", Object.class, Object::new)
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain(WRITES_OPEN);
		withAccessResolver.withPropertyValues("management.endpoint.jobqueue.access=UNRESTRICTED")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output.getOut().split(WRITES_OPEN, -1)).hasSize(2);
		assertThat(output).contains("management.endpoint.jobqueue.access=read-only");
	}

	@Test
	void theDatabasesLocationIsShownOnlyToWhoMaySeeValues() {
		this.runner.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db"))
			.run((context) -> {
				QueueEndpoint endpoint = context.getBean(QueueEndpoint.class);
				assertThat(endpoint.queue(true).storage().location()).endsWith("queue.db");
				assertThat(endpoint.queue(false).storage().location()).isEqualTo(QueueReport.HIDDEN);
				assertThat(endpoint.queue(false).storage().databaseBytes()).isPositive();
			});
	}

	@Test
	void showsJobsHeldByAProcessThatDiedBetweenItsCallersCommitAndTheRelease() {
		Path file = this.dir.resolve("queue.db");
		this.runner.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + file).run((context) -> {
			JobQueue queue = context.getBean(JobQueue.class);
			long orphaned = queue.enqueue("invoice", "{}");
			long stillOpen = queue.enqueue("invoice", "{}");
			queue.enqueue("invoice", "{}");
			// What an enqueue in another database's transaction leaves when its process
			// dies
			// after the commit: the job held, its due time waiting in held_run_at. One
			// was
			// enqueued an hour ago, one just now (its transaction may still be open).
			try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
					Statement statement = connection.createStatement()) {
				statement.executeUpdate("UPDATE jobs SET held_run_at = run_at, run_at = 9223372036854775807, "
						+ "created_at = created_at - 3600000 WHERE id = " + orphaned);
				statement.executeUpdate("UPDATE jobs SET held_run_at = run_at, run_at = 9223372036854775807 "
						+ "WHERE id = " + stillOpen);
			}
			QueueReport.Held held = context.getBean(QueueEndpoint.class).queue().held();
			assertThat(held.count()).isOne();
			assertThat(held.jobs()).extracting(JobView::id).containsExactly(orphaned);
		});
	}

}
