package dev.jobqueue.core.schedule;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.Misfire;
import dev.jobqueue.Schedule;
import dev.jobqueue.ScheduleInfo;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.store.ScheduleFiring;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.StoreTests;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

public abstract class JobSchedulerTests extends StoreTests {

	List<StoreFixture> others = new ArrayList<>();

	@BeforeEach
	void setUp() {
		this.clock.setInstant(Instant.parse("2026-03-01T00:00:00Z"));
	}

	@AfterEach
	void tearDown() {
		this.others.forEach(StoreFixture::close);
	}

	/**
	 * A scheduler with its own connection pool and write lock on the same file: another
	 * process, as SQLite sees it.
	 */
	JobScheduler process(String id, Misfire misfire) {
		StoreFixture own = this.db.anotherProcess();
		this.others.add(own);
		return scheduler(own, id, misfire);
	}

	JobScheduler scheduler(StoreFixture database, String id, Misfire misfire) {
		return new JobScheduler(database.schedules(), new HandlerRegistry(), WorkerHarness.CODEC, this.clock,
				new SchedulerSettings(id, ZoneId.of("UTC"), misfire, Duration.ofMinutes(1), 3), null);
	}

	long jobs() {
		return this.db.count("SELECT count(*) FROM jobs");
	}

	@Test
	void twoSchedulersOnOneFileEnqueueExactlyOneJobPerTick() throws Exception {
		JobScheduler first = process("process-1", Misfire.ONCE);
		JobScheduler second = process("process-2", Misfire.ONCE);
		for (JobScheduler scheduler : List.of(first, second)) {
			scheduler.register("minutely-report", "report", Schedule.cron("0 * * * * *", ZoneId.of("Europe/Paris")),
					"monthly");
			scheduler.start();
		}
		AtomicBoolean stop = new AtomicBoolean();
		AtomicInteger[] wins = { new AtomicInteger(), new AtomicInteger() };
		AtomicInteger[] rounds = { new AtomicInteger(), new AtomicInteger() };
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			JobScheduler scheduler = (i == 0) ? first : second;
			int index = i;
			Thread thread = new Thread(() -> {
				while (!stop.get()) {
					for (ScheduleFiring firing : scheduler.fireDue()) {
						if (firing.jobId() != null) {
							wins[index].incrementAndGet();
						}
					}
					rounds[index].incrementAndGet();
					try {
						Thread.sleep(1);
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			});
			thread.start();
			threads.add(thread);
		}
		try {
			for (int tick = 1; tick <= 100; tick++) {
				this.clock.advance(Duration.ofMinutes(1));
				long expected = tick;
				await().atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(2))
					.until(() -> jobs() >= expected);
			}
			// Both keep firing a while after the last tick: nothing more may appear.
			int[] seen = { rounds[0].get(), rounds[1].get() };
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(5))
				.until(() -> rounds[0].get() > seen[0] + 20 && rounds[1].get() > seen[1] + 20);
		}
		finally {
			stop.set(true);
			for (Thread thread : threads) {
				thread.join(10_000);
			}
		}
		assertThat(jobs()).isEqualTo(100);
		assertThat(wins[0].get() + wins[1].get()).isEqualTo(100);
		assertThat(this.db.count("SELECT count(DISTINCT dedup_key) FROM jobs")).isEqualTo(100);
		List<Object> runAts = this.db.column("SELECT run_at FROM jobs ORDER BY run_at");
		Instant start = Instant.parse("2026-03-01T00:00:00Z");
		for (int i = 0; i < 100; i++) {
			assertThat(runAts.get(i)).isEqualTo(this.db.timestamp(start.plus(Duration.ofMinutes(i + 1))));
		}
		System.out.printf("100 ticks fired by two schedulers on one file: %d by process-1, %d by process-2%n",
				wins[0].get(), wins[1].get());
	}

	@Test
	void afterTenHoursOfDowntimeOneCatchUpJobIsEnqueued() {
		JobScheduler before = scheduler(this.db, "before", Misfire.ONCE);
		before.register("hourly", "report", Schedule.cron("0 0 * * * *"), null);
		before.start();
		this.clock.advance(Duration.ofHours(1));
		assertThat(before.fireDue()).singleElement().satisfies((firing) -> assertThat(firing.catchUp()).isFalse());

		// All processes down from 01:00 to 11:30; a new one starts with the same code.
		this.clock.advance(Duration.ofHours(10).plusMinutes(30));
		JobScheduler after = process("after", Misfire.ONCE);
		after.register("hourly", "report", Schedule.cron("0 0 * * * *"), null);
		after.start();
		List<ScheduleFiring> fired = after.fireDue();

		assertThat(fired).singleElement().satisfies((firing) -> {
			assertThat(firing.catchUp()).isTrue();
			assertThat(firing.tick()).isEqualTo(Instant.parse("2026-03-01T11:00:00Z"));
			assertThat(firing.nextRunAt()).isEqualTo(Instant.parse("2026-03-01T12:00:00Z"));
		});
		assertThat(jobs()).isEqualTo(2);
		Job catchUp = this.db.admin().find(fired.get(0).jobId()).orElseThrow();
		assertThat(catchUp.runAt()).isEqualTo(this.clock.instant());
		assertThat(catchUp.dedupKey()).isEqualTo("schedule:hourly@2026-03-01T11:00:00Z");
		assertThat(this.db.column("SELECT detail FROM job_events WHERE job_id = ? AND event = 'SCHEDULE_TICK'",
				catchUp.id()))
			.singleElement()
			.asString()
			.contains("catch-up");
		assertThat(after.fireDue()).isEmpty();
		assertThat(jobs()).isEqualTo(2);
	}

	@Test
	void afterDowntimeASkippingScheduleEnqueuesNothingAndWaitsForItsNextTick() {
		JobScheduler scheduler = scheduler(this.db, "s", Misfire.ONCE);
		scheduler.register("hourly", "report", Schedule.cron("0 0 * * * *").withMisfire(Misfire.SKIP), null);
		scheduler.start();
		this.clock.advance(Duration.ofHours(10).plusMinutes(30));

		assertThat(scheduler.fireDue()).singleElement().satisfies((firing) -> {
			assertThat(firing.jobId()).isNull();
			assertThat(firing.catchUp()).isTrue();
		});
		assertThat(jobs()).isZero();
		assertThat(scheduler.schedules()).singleElement()
			.satisfies((info) -> assertThat(info.nextRunAt()).isEqualTo(Instant.parse("2026-03-01T11:00:00Z")));

		this.clock.setInstant(Instant.parse("2026-03-01T11:00:20Z"));
		assertThat(scheduler.fireDue()).singleElement().satisfies((firing) -> assertThat(firing.jobId()).isNotNull());
		assertThat(jobs()).isEqualTo(1);
	}

	@Test
	void aTickLateByLessThanTheMisfireThresholdIsOnTimeEvenWhenSkipping() {
		JobScheduler scheduler = scheduler(this.db, "s", Misfire.SKIP);
		scheduler.register("every-5m", "sync", Schedule.every(Duration.ofMinutes(5)), null);
		this.clock.setInstant(Instant.parse("2026-03-01T00:02:00Z"));
		scheduler.start();
		assertThat(scheduler.schedules().get(0).nextRunAt()).isEqualTo(Instant.parse("2026-03-01T00:05:00Z"));

		this.clock.setInstant(Instant.parse("2026-03-01T00:05:45Z"));
		ScheduleFiring firing = scheduler.fireDue().get(0);
		assertThat(firing.catchUp()).isFalse();
		assertThat(this.db.admin().find(firing.jobId()).orElseThrow().runAt())
			.isEqualTo(Instant.parse("2026-03-01T00:05:00Z"));
	}

	@Test
	void aScheduleNoLongerDeclaredByAnyRunningProcessIsNotFired() {
		JobScheduler oldVersion = scheduler(this.db, "old-version", Misfire.ONCE);
		oldVersion.register("legacy", "legacy-report", Schedule.cron("0 * * * * *"), null);
		oldVersion.register("kept", "report", Schedule.cron("0 * * * * *"), null);
		oldVersion.start();
		// The old version is stopped; the new version's code no longer has "legacy".
		JobScheduler newVersion = process("new-version", Misfire.ONCE);
		newVersion.register("kept", "report", Schedule.cron("0 * * * * *"), null);
		newVersion.start();

		for (int i = 0; i < 6; i++) {
			this.clock.advance(Duration.ofMinutes(1));
			newVersion.fireDue();
		}

		assertThat(this.db.column("SELECT DISTINCT type FROM jobs")).containsExactly("report");
		assertThat(jobs()).isEqualTo(6);
		List<ScheduleInfo> schedules = newVersion.schedules();
		assertThat(schedules).extracting(ScheduleInfo::name).containsExactly("kept", "legacy");
		ScheduleInfo kept = schedules.get(0);
		assertThat(kept.live()).isTrue();
		assertThat(kept.nextRunAt()).isEqualTo(this.clock.instant().plus(Duration.ofMinutes(1)));
		assertThat(kept.lastTickAt()).isEqualTo(this.clock.instant());
		assertThat(kept.lastJobId()).isNotNull();
		assertThat(schedules.get(1).live()).isFalse();
	}

	@Test
	void theProcessThatStartsLastDefinesAChangedSchedule() {
		JobScheduler oldVersion = scheduler(this.db, "old-version", Misfire.ONCE);
		oldVersion.register("sync", "sync", Schedule.cron("0 0 * * * *"), "v1");
		oldVersion.start();
		this.clock.advance(Duration.ofMinutes(7));
		JobScheduler newVersion = process("new-version", Misfire.ONCE);
		newVersion.register("sync", "sync", Schedule.every(Duration.ofMinutes(15)), "v2");
		newVersion.start();

		ScheduleInfo info = newVersion.schedules().get(0);
		assertThat(info.expression()).isEqualTo("every:PT15M");
		assertThat(info.definedBy()).isEqualTo("new-version");
		assertThat(info.nextRunAt()).isEqualTo(Instant.parse("2026-03-01T00:15:00Z"));

		// The old process, still running, fires by the stored definition.
		this.clock.setInstant(Instant.parse("2026-03-01T00:15:00Z"));
		ScheduleFiring firing = oldVersion.fireDue().get(0);
		assertThat(this.db.admin().find(firing.jobId()).orElseThrow().payload()).isEqualTo("\"v2\"");
		assertThat(newVersion.fireDue()).isEmpty();
	}

	@Test
	void aPausedTypesTicksWaitAndFireByTheMisfirePolicyOnResume() {
		JobScheduler scheduler = scheduler(this.db, "s", Misfire.ONCE);
		scheduler.register("hourly", "report", Schedule.cron("0 0 * * * *"), null);
		scheduler.start();
		this.db.admin().pause("report", "test", this.clock.instant());
		this.clock.advance(Duration.ofHours(5).plusMinutes(30));
		assertThat(scheduler.fireDue()).isEmpty();
		assertThat(scheduler.schedules().get(0).paused()).isTrue();
		assertThat(scheduler.nextDue()).isNull();

		this.db.admin().resume("report");
		assertThat(scheduler.fireDue()).singleElement().satisfies((firing) -> {
			assertThat(firing.catchUp()).isTrue();
			assertThat(firing.tick()).isEqualTo(Instant.parse("2026-03-01T05:00:00Z"));
		});
		assertThat(jobs()).isEqualTo(1);
		assertThat(scheduler.nextDue()).isEqualTo(Instant.parse("2026-03-01T06:00:00Z"));
	}

	@Test
	void aYearOfMissedPerSecondTicksIsCaughtUpWithOneJob() {
		JobScheduler scheduler = scheduler(this.db, "s", Misfire.ONCE);
		scheduler.register("every-second", "ping", Schedule.cron("* * * * * *"), null);
		scheduler.start();
		this.clock.advance(Duration.ofDays(365).plusMillis(500));
		assertThat(scheduler.fireDue()).hasSize(1);
		assertThat(jobs()).isEqualTo(1);
	}

	@Test
	void findingTheLatestOfAYearOfMissedPerSecondTicksLooksAtAMinuteOfTicksNotAYear() {
		Schedule everySecond = Schedule.cron("* * * * * *").inZone(ZoneOffset.UTC);
		Instant firstDue = Instant.parse("2026-03-01T00:00:01Z");
		Instant now = firstDue.plus(Duration.ofDays(365)).plusMillis(500);
		AtomicInteger calls = new AtomicInteger();

		Instant latest = JobScheduler.latestTick((after) -> {
			calls.incrementAndGet();
			return everySecond.nextAfter(after);
		}, firstDue, now);

		assertThat(latest).isEqualTo(firstDue.plus(Duration.ofDays(365)));
		// 31,536,000 ticks were missed; the search looks back a minute first and walks
		// the ticks in it.
		assertThat(calls.get()).isBetween(1, 100);
	}

	@Test
	void latestTickLooksBackThroughDoublingWindows() {
		Schedule hourly = Schedule.cron("0 0 * * * *");
		Instant first = Instant.parse("2026-03-01T01:00:00Z");
		assertThat(JobScheduler.latestTick(hourly, first, Instant.parse("2026-03-01T01:00:00Z"))).isEqualTo(first);
		assertThat(JobScheduler.latestTick(hourly, first, Instant.parse("2026-03-01T11:30:00Z")))
			.isEqualTo(Instant.parse("2026-03-01T11:00:00Z"));
		assertThat(JobScheduler.latestTick(hourly, first, Instant.parse("2026-09-01T00:59:59Z")))
			.isEqualTo(Instant.parse("2026-09-01T00:00:00Z"));
	}

	@Test
	void badRegistrationsFailWithAMessageSayingWhatToDo() {
		JobScheduler scheduler = scheduler(this.db, "s", Misfire.ONCE);
		scheduler.register("nightly", "export", Schedule.cron("@daily"), null);
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> scheduler.register("nightly", "export", Schedule.every(Duration.ofHours(1)), null))
			.withMessageContaining("declared twice");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> Schedule.cron("0 0 * *"))
			.withMessageContaining("not a valid cron expression")
			.withMessageContaining("six fields");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> Schedule.every(Duration.ofMillis(10)))
			.withMessageContaining("at least one second");
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> scheduler.register(" ", "export", Schedule.cron("@daily"), null))
			.withMessageContaining("name");
	}

	@Test
	void schedulesAndPausesWorkUnderATablePrefix() {
		try (StoreFixture prefixed = createFixture(this.dir.resolve("prefixed"), "jq_")) {
			JobScheduler scheduler = scheduler(prefixed, "s", Misfire.ONCE);
			scheduler.register("minutely", "report", Schedule.cron("0 * * * * *"), null);
			scheduler.start();
			prefixed.admin().pause("report", "test", this.clock.instant());
			this.clock.advance(Duration.ofMinutes(1));
			assertThat(scheduler.fireDue()).isEmpty();
			prefixed.admin().resume("report");
			assertThat(scheduler.fireDue()).hasSize(1);
			assertThat(prefixed.count("SELECT count(*) FROM jq_jobs")).isEqualTo(1);
			assertThat(prefixed.count("SELECT count(*) FROM jq_job_schedules")).isEqualTo(1);
		}
	}

	@Test
	void aRegistrationAfterStartIsWrittenAtOnce() {
		JobScheduler scheduler = scheduler(this.db, "s", Misfire.ONCE);
		scheduler.start();
		scheduler.register("late", "report", Schedule.every(Duration.ofMinutes(10)), null);
		Set<String> names = new HashSet<>();
		scheduler.schedules().forEach((info) -> names.add(info.name()));
		assertThat(names).containsExactly("late");
		assertThat(scheduler.schedules().get(0).nextRunAt()).isEqualTo(Instant.parse("2026-03-01T00:10:00Z"));
	}

}
