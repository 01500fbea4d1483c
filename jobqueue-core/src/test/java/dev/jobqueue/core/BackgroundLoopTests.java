package dev.jobqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

class BackgroundLoopTests {

	static final Duration LONG = Duration.ofHours(1);

	final Logger logger = (Logger) LoggerFactory.getLogger(BackgroundLoopTests.class);

	final ListAppender<ILoggingEvent> logs = new ListAppender<>();

	BackgroundLoop loop;

	BackgroundLoopTests() {
		this.logs.start();
		this.logger.addAppender(this.logs);
	}

	@AfterEach
	void stopLoop() {
		if (this.loop != null) {
			this.loop.stop(Duration.ofSeconds(10));
		}
		this.logger.detachAppender(this.logs);
	}

	@Test
	void runsOnANamedDaemonThread() {
		AtomicReference<Thread> thread = new AtomicReference<>();
		this.loop = loop((Duration) null, () -> {
			thread.set(Thread.currentThread());
			return LONG;
		});
		this.loop.start();

		await().atMost(Duration.ofSeconds(10)).until(() -> thread.get() != null);
		assertThat(thread.get().getName()).isEqualTo("test-loop");
		assertThat(thread.get().isDaemon()).isTrue();
		assertThat(this.loop.isRunning()).isTrue();
	}

	@Test
	void aWakeUpEndsTheWaitTheStepAskedFor() {
		AtomicInteger rounds = new AtomicInteger();
		this.loop = loop((Duration) null, () -> {
			rounds.incrementAndGet();
			return LONG;
		});
		this.loop.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> rounds.get() == 1);

		this.loop.wakeUp();

		await().atMost(Duration.ofSeconds(10)).until(() -> rounds.get() == 2);
	}

	@Test
	void aZeroWaitRunsTheNextRoundAtOnce() {
		AtomicInteger rounds = new AtomicInteger();
		this.loop = loop((Duration) null, () -> (rounds.incrementAndGet() < 4) ? Duration.ZERO : LONG);
		this.loop.start();

		await().atMost(Duration.ofSeconds(10)).until(() -> rounds.get() == 4);
	}

	@Test
	void aWakeConditionEndsTheWaitOnceItHolds() {
		AtomicInteger rounds = new AtomicInteger();
		AtomicBoolean changed = new AtomicBoolean();
		this.loop = loop((Duration) null, () -> {
			rounds.incrementAndGet();
			changed.set(false);
			return LONG;
		}).wakeWhen(changed::get, Duration.ofMillis(5));
		this.loop.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> rounds.get() == 1);

		changed.set(true);

		await().atMost(Duration.ofSeconds(10)).until(() -> rounds.get() == 2);
	}

	@Test
	void anInitialDelayIsCutShortByAWakeUp() {
		AtomicInteger rounds = new AtomicInteger();
		this.loop = loop((Duration) null, () -> {
			rounds.incrementAndGet();
			return LONG;
		});
		this.loop.start(LONG);
		assertThat(rounds.get()).isZero();

		this.loop.wakeUp();

		await().atMost(Duration.ofSeconds(10)).until(() -> rounds.get() == 1);
	}

	@Test
	void failuresAreRetriedAndLoggedFirstThenEveryTwentiethThenTheRecovery() {
		AtomicInteger rounds = new AtomicInteger();
		this.loop = loop(Duration.ofMillis(1), () -> {
			if (rounds.incrementAndGet() <= 41) {
				throw new IllegalStateException("database is down " + rounds.get());
			}
			return LONG;
		});
		this.loop.start();

		await().atMost(Duration.ofSeconds(30)).until(() -> rounds.get() == 42);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.logs.list.stream().anyMatch((event) -> event.getLevel() == Level.INFO));
		assertThat(this.loop.failures()).isEqualTo(41);
		List<ILoggingEvent> errors = this.logs.list.stream()
			.filter((event) -> event.getLevel() == Level.ERROR)
			.toList();
		assertThat(errors).extracting(ILoggingEvent::getFormattedMessage)
			.containsExactly(
					"Could not do the test work (failure 1 in a row, next try in 1 ms): "
							+ "java.lang.IllegalStateException: database is down 1",
					"Could not do the test work (failure 20 in a row, next try in 2 ms): "
							+ "java.lang.IllegalStateException: database is down 20",
					"Could not do the test work (failure 40 in a row, next try in 2 ms): "
							+ "java.lang.IllegalStateException: database is down 40");
		assertThat(errors.get(0).getThrowableProxy()).as("stack trace of the first").isNotNull();
		assertThat(errors.get(1).getThrowableProxy()).as("no stack trace of a repeat").isNull();
		assertThat(this.logs.list).filteredOn((event) -> event.getLevel() == Level.INFO)
			.extracting(ILoggingEvent::getFormattedMessage)
			.containsExactly("test-loop: works again after 41 failure(s) in a row");
	}

	@Test
	void backoffGrowsWithTheFailuresInARowUpToTheCap() {
		BackgroundLoop backingOff = new BackgroundLoop("test-loop", () -> LONG, Duration.ofMillis(100),
				Duration.ofMillis(450), this.logger, "x");

		assertThat(backingOff.backoffMillis(1)).isEqualTo(100);
		assertThat(backingOff.backoffMillis(2)).isEqualTo(200);
		assertThat(backingOff.backoffMillis(4)).isEqualTo(400);
		assertThat(backingOff.backoffMillis(5)).isEqualTo(450);
		assertThat(backingOff.backoffMillis(Integer.MAX_VALUE)).isEqualTo(450);
	}

	@Test
	void aCapBelowTheBackoffIsTheBackoff() {
		BackgroundLoop constant = new BackgroundLoop("test-loop", () -> LONG, Duration.ofMinutes(1),
				Duration.ofSeconds(1), this.logger, "x");

		assertThat(constant.backoffMillis(1)).isEqualTo(60_000);
		assertThat(constant.backoffMillis(7)).isEqualTo(60_000);
	}

	@Test
	void stopLetsTheCurrentStepFinishWithoutInterruptingIt() throws Exception {
		CountDownLatch inStep = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger rounds = new AtomicInteger();
		AtomicBoolean interrupted = new AtomicBoolean();
		this.loop = loop((Duration) null, () -> {
			rounds.incrementAndGet();
			inStep.countDown();
			try {
				release.await();
			}
			catch (InterruptedException ex) {
				interrupted.set(true);
			}
			return Duration.ZERO;
		});
		this.loop.start();
		assertThat(inStep.await(10, TimeUnit.SECONDS)).isTrue();

		CompletableFuture<Boolean> stopped = CompletableFuture
			.supplyAsync(() -> this.loop.stop(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(this.loop::isStopping);
		assertThat(stopped).isNotDone();
		release.countDown();

		assertThat(stopped.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(interrupted).isFalse();
		assertThat(rounds.get()).as("no round after the stop").isEqualTo(1);
		assertThat(this.loop.isRunning()).isFalse();
	}

	@Test
	void stopEndsAWaitPromptly() {
		AtomicInteger rounds = new AtomicInteger();
		this.loop = loop((Duration) null, () -> {
			rounds.incrementAndGet();
			return LONG;
		});
		this.loop.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> rounds.get() == 1);

		assertThat(this.loop.stop(Duration.ofSeconds(30))).isTrue();
		assertThat(rounds.get()).isEqualTo(1);
	}

	@Test
	void anInterruptEndsTheLoop() {
		AtomicReference<Thread> thread = new AtomicReference<>();
		this.loop = loop((Duration) null, () -> {
			thread.set(Thread.currentThread());
			return LONG;
		});
		this.loop.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> thread.get() != null);

		thread.get().interrupt();

		await().atMost(Duration.ofSeconds(10)).until(() -> !thread.get().isAlive());
		assertThat(this.loop.isStopping()).isTrue();
		assertThat(this.loop.isRunning()).isFalse();
	}

	@Test
	void aLoopRunsOnce() {
		this.loop = loop((Duration) null, () -> LONG);
		this.loop.start();

		assertThatIllegalStateException().isThrownBy(this.loop::start).withMessageContaining("test-loop");
	}

	@Test
	void stoppingALoopThatNeverStartedIsFine() {
		BackgroundLoop never = loop((Duration) null, () -> LONG);

		assertThat(never.stop(Duration.ofSeconds(1))).isTrue();
		assertThat(never.isRunning()).isFalse();
	}

	private BackgroundLoop loop(Duration backoff, BackgroundLoop.Step step) {
		Duration first = (backoff != null) ? backoff : Duration.ofMillis(10);
		return new BackgroundLoop("test-loop", step, first, first.multipliedBy(2), this.logger,
				"Could not do the test work");
	}

}
