package dev.jobqueue.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobSchedules;
import dev.jobqueue.Misfire;
import dev.jobqueue.PausedType;
import dev.jobqueue.Schedule;
import dev.jobqueue.ScheduleInfo;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.schedule.JobScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class SchedulingAutoConfigurationTests {

	@TempDir
	Path dir;

	ApplicationContextRunner runner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(QueueAutoConfiguration.class))
			.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("queue.db"),
					"jobqueue.scheduling.zone=UTC");
	}

	@Test
	void handlerSchedulesAndRegisteredSchedulesAreDeclaredAtStart() {
		runner().withUserConfiguration(ScheduledHandlers.class).run((context) -> {
			assertThat(context).hasNotFailed();
			JobSchedules schedules = context.getBean(JobSchedules.class);
			assertThat(schedules.schedules()).extracting(ScheduleInfo::name)
				.containsExactly("nightly-export", "report", "sync");
			ScheduleInfo report = schedules.schedules().get(1);
			assertThat(report.expression()).isEqualTo("cron:0 0 * * * *");
			assertThat(report.zone()).isEqualTo("Europe/Paris");
			assertThat(report.misfire()).isEqualTo(Misfire.ONCE);
			assertThat(report.live()).isTrue();
			ScheduleInfo sync = schedules.schedules().get(2);
			assertThat(sync.expression()).isEqualTo("every:PT5M");
			assertThat(sync.misfire()).isEqualTo(Misfire.SKIP);
			assertThat(schedules.schedules().get(0).zone()).isEqualTo("UTC");
			assertThat(context.getBean(HandlerRegistry.class).find("report").orElseThrow().globalConcurrency())
				.isEqualTo(2);
			assertThat(context.getBean(QueueScheduler.class).isRunning()).isTrue();
		});
	}

	@Test
	void schedulesFromConfigurationAreDeclared() {
		runner()
			.withPropertyValues("jobqueue.scheduling.schedules.nightly-export.type=export",
					"jobqueue.scheduling.schedules.nightly-export.cron=0 30 2 * * *",
					"jobqueue.scheduling.schedules.nightly-export.zone=Europe/Paris",
					"jobqueue.scheduling.schedules.nightly-export.misfire=skip",
					"jobqueue.scheduling.schedules.nightly-export.payload.scope=all",
					"jobqueue.scheduling.schedules.heartbeat.type=ping",
					"jobqueue.scheduling.schedules.heartbeat.every=30s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				List<ScheduleInfo> schedules = context.getBean(JobSchedules.class).schedules();
				assertThat(schedules).extracting(ScheduleInfo::name).containsExactly("heartbeat", "nightly-export");
				assertThat(schedules.get(0).expression()).isEqualTo("every:PT30S");
				assertThat(schedules.get(1).expression()).isEqualTo("cron:0 30 2 * * *");
				assertThat(schedules.get(1).zone()).isEqualTo("Europe/Paris");
				assertThat(schedules.get(1).misfire()).isEqualTo(Misfire.SKIP);
			});
	}

	@Test
	void aConfiguredScheduleWithoutCronOrEveryFailsAtBindingNamingTheProperty() {
		assertFailsAtBinding(List.of("jobqueue.scheduling.schedules.broken.type=export"),
				"jobqueue.scheduling.schedules.broken: needs exactly one of .cron");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', quoteCharacter = '`', value = {
			"cron=30 2 * * *|'30 2 * * *' has 5 fields, as crontab writes them, but a Spring cron expression has 6, "
					+ "seconds first (second minute hour day-of-month month day-of-week). Write \"0 30 2 * * *\" "
					+ "for the same times",
			"cron=0 0 25 * * *|'0 0 25 * * *' is not a valid cron expression: hour field '25'",
			"every=500ms|A schedule interval must be at least one second",
			"every=5 minutes|'5 minutes' is not a valid duration",
			"zone=Mars/Olympus|Unknown time-zone ID: Mars/Olympus", "type=|the job type the schedule enqueues is "
					+ "missing: set .type to the type its @JobHandler declares" })
	void aWrongScheduleValueFailsAtBindingNamingThePropertyAndTheFix(String setting, String reason) {
		List<String> properties = new ArrayList<>(List.of("jobqueue.scheduling.schedules.nightly.type=export",
				"jobqueue.scheduling.schedules.nightly.cron=0 0 3 * * *"));
		String key = setting.substring(0, setting.indexOf('='));
		if (key.equals("every")) {
			properties.remove(1);
		}
		properties.add("jobqueue.scheduling.schedules.nightly." + setting);
		assertFailsAtBinding(properties, reason);
	}

	@Test
	void aScheduleTypeLongerThanATypeMayBeFailsAtBinding() {
		assertFailsAtBinding(
				List.of("jobqueue.scheduling.schedules.nightly.type=" + "x".repeat(201),
						"jobqueue.scheduling.schedules.nightly.every=1h"),
				"a type has at most 200 characters (this one has 201)");
	}

	private void assertFailsAtBinding(List<String> properties, String reason) {
		runner().withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			// Bound, not built: Boot's binding failure analysis prints it.
			assertThat(Stream.iterate(failure, Objects::nonNull, Throwable::getCause))
				.anyMatch(BindException.class::isInstance);
			assertThat(failure).rootCause().hasMessageContaining(reason);
		});
	}

	@Test
	void pauseIsVisibleThroughTheQueue() {
		runner().run((context) -> {
			JobQueue queue = context.getBean(JobQueue.class);
			assertThat(queue.pause("report")).isTrue();
			assertThat(queue.pausedTypes()).extracting(PausedType::type).containsExactly("report");
			assertThat(queue.resume("report")).isTrue();
			assertThat(queue.pausedTypes()).isEmpty();
		});
	}

	@Test
	void anInvalidCronFailsStartUpNamingTheMethod() {
		runner().withUserConfiguration(BadCron.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Invalid @JobHandler on bean 'badCronHandler' method BadCronHandler.run()")
				.hasMessageContaining("is not a cron expression");
		});
	}

	@Test
	void cronAndEveryTogetherFailStartUp() {
		runner().withUserConfiguration(CronAndEvery.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("both cron")
				.hasMessageContaining("and every");
		});
	}

	@Test
	void withSchedulingDisabledNothingIsDeclaredOrFired() {
		runner().withUserConfiguration(ScheduledHandlers.class)
			.withPropertyValues("jobqueue.scheduling.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(QueueScheduler.class);
				assertThat(context.getBean(JobScheduler.class).isStarted()).isFalse();
				assertThat(context.getBean(JobSchedules.class).schedules()).isEmpty();
			});
	}

	@Test
	void aScheduleFiresAndItsJobRunsInTheRunningApplication() {
		runner().withUserConfiguration(EverySecond.class)
			.withPropertyValues("jobqueue.worker.poll-interval=100ms", "jobqueue.scheduling.poll-interval=100ms")
			.run((context) -> {
				Ticker ticker = context.getBean(Ticker.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> ticker.runs.get() >= 2);
				ScheduleInfo info = context.getBean(JobSchedules.class).schedules().get(0);
				assertThat(info.lastJobId()).isNotNull();
				assertThat(info.nextRunAt()).isAfter(info.lastTickAt());
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class EverySecond {

		@Bean
		Ticker ticker() {
			return new Ticker();
		}

	}

	static class Ticker {

		final AtomicInteger runs = new AtomicInteger();

		@JobHandler(value = "tick", every = "1s")
		void tick() {
			this.runs.incrementAndGet();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ScheduledHandlers {

		@Bean
		ReportHandlers reportHandlers(JobSchedules schedules) {
			schedules.register("nightly-export", "export", Schedule.cron("0 30 2 * * *"), "all");
			return new ReportHandlers();
		}

	}

	static class ReportHandlers {

		@JobHandler(value = "report", cron = "0 0 * * * *", zone = "Europe/Paris", globalConcurrency = 2)
		void report(JobContext context) {
		}

		@JobHandler(value = "sync", every = "5m", misfire = Misfire.SKIP)
		void sync(String payload) {
		}

		@JobHandler("export")
		void export(String what) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadCron {

		@Bean
		BadCronHandler badCronHandler() {
			return new BadCronHandler();
		}

	}

	static class BadCronHandler {

		@JobHandler(value = "bad", cron = "every hour")
		void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CronAndEvery {

		@Bean
		CronAndEveryHandler cronAndEveryHandler() {
			return new CronAndEveryHandler();
		}

	}

	static class CronAndEveryHandler {

		@JobHandler(value = "both", cron = "0 0 * * * *", every = "PT1H")
		void run() {
		}

	}

}
