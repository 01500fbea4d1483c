package dev.jobqueue.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.jobqueue.Job;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteSchema;
import dev.jobqueue.testing.Invariants;
import dev.jobqueue.testing.JobRows;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The bad input catalogue: each bad input gets a clear error or a recorded outcome,
 * nothing is lost, and the database stays consistent. Handler-level cases run in a Spring
 * context, so real {@code @JobHandler} methods and payload mapping are exercised.
 */
class BadInputTests {

	/** Bad inputs tried by this class, counted for the reliability summary. */
	static final AtomicInteger tried = new AtomicInteger();

	@TempDir
	Path dir;

	TestDatabase db;

	final MutableClock clock = MutableClock.startingAt("2026-01-01T00:00:00Z");

	WorkerHarness harness;

	ExecutorService executor = Executors.newFixedThreadPool(2);

	@org.junit.jupiter.api.AfterAll
	static void summary() {
		System.out.println("BAD INPUT inputs=" + tried.get());
	}

	@BeforeEach
	void setUp() {
		this.db = TestDatabase.create(this.dir);
		this.harness = new WorkerHarness(this.db, this.clock);
	}

	@AfterEach
	void tearDown() {
		this.executor.shutdownNow();
		assertThat(Invariants.violations(this.db.file())).isEmpty();
		this.db.close();
	}

	@Test
	void unknownJobTypeStaysPendingWithoutBurningAttempts() {
		this.harness.handle(HandlerDefinition.of("known", (payload, context) -> null));
		long unknown = this.harness.queue.enqueue("nobody-handles-this", "x");
		long known = this.harness.queue.enqueue("known", "y");
		JobWorker worker = this.harness.directWorker("w");
		for (int i = 0; i < 5; i++) {
			worker.pollOnce();
			this.clock.advance(Duration.ofMinutes(10));
		}
		tried.incrementAndGet();
		assertThat(status(known)).isEqualTo(JobStatus.SUCCEEDED);
		Job parked = this.harness.queue.find(unknown).orElseThrow();
		assertThat(parked.status()).isEqualTo(JobStatus.PENDING);
		assertThat(parked.attempts()).isZero();
		assertThat(this.db.count("SELECT runs FROM jobs WHERE id = ?", unknown)).isZero();
		assertThat(this.db.count("SELECT count(*) FROM job_attempts WHERE job_id = ?", unknown)).isZero();
	}

	@Test
	void badRequestsFailAtEnqueueSayingWhatToChangeAndWriteNothing() {
		this.harness.queue.enqueue("ok", 1);
		Map<String, Runnable> bad = new java.util.LinkedHashMap<>();
		bad.put("null type", () -> this.harness.queue.enqueue(JobRequest.of(null, 1)));
		bad.put("blank type", () -> this.harness.queue.enqueue("   ", 1));
		bad.put("type with a newline", () -> this.harness.queue.enqueue("thumb\nnail", 1));
		bad.put("type of 10,000 characters", () -> this.harness.queue.enqueue("t".repeat(10_000), 1));
		bad.put("negative priority", () -> this.harness.queue.enqueue(JobRequest.of("ok", 1).priority(-1_000_000)));
		bad.put("absurd priority",
				() -> this.harness.queue.enqueue(JobRequest.of("ok", 1).priority(Integer.MAX_VALUE)));
		bad.put("negative delay",
				() -> this.harness.queue.enqueue(JobRequest.of("ok", 1).delay(Duration.ofSeconds(-5))));
		bad.put("absurd delay",
				() -> this.harness.queue.enqueue(JobRequest.of("ok", 1).delay(Duration.ofDays(100_000))));
		bad.put("absurd runAt", () -> this.harness.queue.enqueue(JobRequest.of("ok", 1).runAt(Instant.MAX)));
		bad.put("zero maxAttempts", () -> this.harness.queue.enqueue(JobRequest.of("ok", 1).maxAttempts(0)));
		bad.put("negative maxAttempts", () -> this.harness.queue.enqueue(JobRequest.of("ok", 1).maxAttempts(-3)));
		bad.put("absurd maxAttempts",
				() -> this.harness.queue.enqueue(JobRequest.of("ok", 1).maxAttempts(Integer.MAX_VALUE)));
		bad.put("blank dedup key", () -> this.harness.queue.enqueue(JobRequest.of("ok", 1).dedupKey(" ")));
		bad.put("oversized payload", () -> this.harness.queue.enqueue("ok", "p".repeat(200_000)));
		bad.put("payload that is not JSON-able", () -> this.harness.queue.enqueue("ok", new Unwritable()));
		bad.put("one bad job in a batch", () -> this.harness.queue
			.enqueueAll(List.of(JobRequest.of("ok", 1), JobRequest.of("ok", 2).priority(5_000))));
		for (Map.Entry<String, Runnable> entry : bad.entrySet()) {
			tried.incrementAndGet();
			assertThatExceptionOfType(RuntimeException.class).as(entry.getKey())
				.isThrownBy(entry.getValue()::run)
				.satisfies((ex) -> {
					assertThat(ex).as(entry.getKey())
						.isInstanceOfAny(JobQueueException.class, NullPointerException.class,
								IllegalArgumentException.class);
					assertThat(ex.getMessage()).as(entry.getKey()).isNotBlank().hasSizeGreaterThan(25);
				});
		}
		assertThat(this.db.count("SELECT count(*) FROM jobs")).as("nothing written").isOne();
	}

	@Test
	void handlerThrowingErrorsIsRecordedAndTheWorkerThreadSurvives() throws Exception {
		List<Thread> threads = new CopyOnWriteArrayList<>();
		this.harness.handle(new HandlerDefinition("oom", (payload, context) -> {
			threads.add(Thread.currentThread());
			throw new OutOfMemoryError("simulated: Java heap space");
		}, 1, null, 0, true, "oom"));
		this.harness.handle(new HandlerDefinition("recursion", (payload, context) -> {
			threads.add(Thread.currentThread());
			return recurse(1);
		}, 1, null, 0, true, "recursion"));
		this.harness.handle(HandlerDefinition.of("ok", (payload, context) -> {
			threads.add(Thread.currentThread());
			return "fine";
		}));
		ExecutorService single = Executors.newSingleThreadExecutor();
		try {
			JobWorker worker = this.harness.concurrency(1).worker("w", single);
			long oom = this.harness.queue.enqueue("oom", 1);
			long overflow = this.harness.queue.enqueue("recursion", 1);
			long ok = this.harness.queue.enqueue("ok", 1);
			tried.addAndGet(2);
			// All three, in any order: a job on its last attempt (these have one) is
			// never
			// claimed ahead, so "ok" may wait in the buffer and run before "recursion".
			await().atMost(Duration.ofSeconds(20)).until(() -> {
				worker.pollOnce();
				return status(ok) == JobStatus.SUCCEEDED && status(oom) == JobStatus.FAILED
						&& status(overflow) == JobStatus.FAILED;
			});
			assertThat(this.harness.queue.find(oom).orElseThrow().errorCode()).isEqualTo("RESOURCE:OUT_OF_MEMORY");
			assertThat(this.harness.queue.find(overflow).orElseThrow().errorCode())
				.isEqualTo("INTERNAL:STACK_OVERFLOW");
			assertThat(status(oom)).isEqualTo(JobStatus.FAILED);
			assertThat(status(overflow)).isEqualTo(JobStatus.FAILED);
			assertThat(threads).hasSize(3);
			assertThat(threads).as("one thread ran all three: it survived the errors").containsOnly(threads.get(0));
		}
		finally {
			single.shutdownNow();
		}
	}

	/** A payload Jackson cannot write: its only property throws. */
	public static class Unwritable {

		public String getBoom() {
			throw new IllegalStateException("this getter always fails");
		}

	}

	private static int recurse(int depth) {
		return recurse(depth + 1) + 1;
	}

	@Test
	void handlerThatNeverReturnsTimesOutAndOneSwallowingInterruptsIsReported() throws Exception {
		Logger logger = (Logger) LoggerFactory.getLogger(JobWorker.class);
		ListAppender<ILoggingEvent> logs = new ListAppender<>();
		logs.start();
		logger.addAppender(logs);
		CountDownLatch started = new CountDownLatch(2);
		AtomicBoolean letGo = new AtomicBoolean();
		this.harness.handle(new HandlerDefinition("forever", (payload, context) -> {
			started.countDown();
			Thread.sleep(Long.MAX_VALUE);
			return null;
		}, 1, Duration.ofSeconds(30), 0, true, "forever"));
		this.harness.handle(new HandlerDefinition("deaf", (payload, context) -> {
			started.countDown();
			while (!letGo.get()) {
				try {
					Thread.sleep(10);
				}
				catch (InterruptedException ex) {
					// Swallowed on purpose: the worker must report it, not hang on it.
				}
			}
			return null;
		}, 1, Duration.ofSeconds(30), 0, true, "deaf"));
		try {
			JobWorker worker = this.harness.worker("w", this.executor);
			long forever = this.harness.queue.enqueue("forever", 1);
			long deaf = this.harness.queue.enqueue("deaf", 1);
			tried.addAndGet(2);
			worker.pollOnce();
			assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
			this.clock.advance(Duration.ofSeconds(31));
			worker.pollOnce();
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				worker.pollOnce();
				return status(forever) == JobStatus.FAILED;
			});
			assertThat(this.harness.queue.find(forever).orElseThrow().errorCode()).isEqualTo("TIMEOUT:HANDLER");
			this.clock.advance(Duration.ofSeconds(31));
			worker.pollOnce();
			assertThat(status(deaf)).as("still running: it ignores the interrupt").isEqualTo(JobStatus.RUNNING);
			assertThat(logs.list).anySatisfy((event) -> assertThat(event.getFormattedMessage())
				.contains("Job " + deaf + " (deaf) ignores interrupts"));
			letGo.set(true);
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				worker.pollOnce();
				return status(deaf) == JobStatus.FAILED;
			});
			assertThat(this.harness.queue.find(deaf).orElseThrow().errorCode()).isEqualTo("TIMEOUT:HANDLER");
		}
		finally {
			letGo.set(true);
			logger.detachAppender(logs);
		}
	}

	@Test
	void handlerEnqueueingReentrantlyWorksWithoutDeadlock() throws Exception {
		this.harness.handle(HandlerDefinition.of("parent", (payload, context) -> {
			long child = this.harness.queue.enqueue("child", "of " + context.jobId());
			this.harness.queue
				.enqueueAll(List.of(JobRequest.of("child", "batch 1"), JobRequest.of("child", "batch 2")));
			return child;
		}));
		this.harness.handle(HandlerDefinition.of("child", (payload, context) -> {
			context.heartbeat();
			return null;
		}));
		tried.incrementAndGet();
		long parent = this.harness.queue.enqueue("parent", 1);
		// On the polling thread itself (direct executor) and on pool threads.
		JobWorker direct = this.harness.directWorker("direct");
		org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
			direct.pollOnce();
			assertThat(status(parent)).isEqualTo(JobStatus.SUCCEEDED);
			long second = this.harness.queue.enqueue("parent", 2);
			JobWorker pooled = this.harness.worker("pooled", this.executor);
			await().atMost(Duration.ofSeconds(15)).until(() -> {
				pooled.pollOnce();
				return this.db.count("SELECT count(*) FROM jobs WHERE status != 'succeeded'") == 0;
			});
			assertThat(status(second)).isEqualTo(JobStatus.SUCCEEDED);
		});
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE type = 'child'")).isEqualTo(6);
	}

	@Test
	void sqlLookingStringsInEveryFieldAreStoredVerbatim() {
		String sql = "x'); DROP TABLE jobs; --";
		String type = "type " + sql;
		this.harness.handle(new HandlerDefinition(type, (payload, context) -> {
			throw new IllegalStateException("detail " + sql + " \" OR 1=1 --");
		}, 1, null, 0, true, "sql"));
		long id = this.harness.queue
			.enqueue(JobRequest.of(type, Map.of("q", sql + " UNION SELECT * FROM jobs")).dedupKey(sql));
		tried.addAndGet(4);
		this.harness.directWorker("w").pollOnce();
		Job job = this.harness.queue.find(id).orElseThrow();
		assertThat(job.type()).isEqualTo(type);
		assertThat(job.dedupKey()).isEqualTo(sql);
		assertThat(job.payload()).isEqualTo("{\"q\":\"" + sql + " UNION SELECT * FROM jobs\"}");
		assertThat(job.status()).isEqualTo(JobStatus.FAILED);
		assertThat(job.errorDetail()).isEqualTo("java.lang.IllegalStateException: detail " + sql + " \" OR 1=1 --");
		assertThat(this.db.count("SELECT count(*) FROM jobs")).isOne();
	}

	@Test
	void newerSchemaVersionIsRefusedSayingWhy() {
		this.db.execute("INSERT INTO jobqueue_schema_history (installed_rank, version, description, type, script, "
				+ "checksum, installed_by, installed_on, execution_time, success) VALUES ((SELECT max(installed_rank) + 1 "
				+ "FROM jobqueue_schema_history), '99', 'from the future', 'SQL', 'V99__from_the_future.sql', 0, 'test', "
				+ "CURRENT_TIMESTAMP, 0, 1)");
		tried.incrementAndGet();
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> new SqliteSchema(this.db.dataSource(), SqliteDialect.tables("")).initialize())
			.withMessageContaining("schema version 99")
			.withMessageContaining("newer version of jobqueue")
			.withMessageContaining("Refusing to start");
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class))
			.withPropertyValues("jobqueue.datasource.url=" + this.db.url())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("schema version 99")
				.hasMessageContaining("Refusing to start"));
	}

	// Handler-level cases in a Spring context with real @JobHandler methods and Jackson
	// payload mapping.

	record Greeting(String name, int count) {
	}

	record Text(String value) {
	}

	static class Handlers {

		final List<Object> received = new CopyOnWriteArrayList<>();

		@JobHandler(value = "greet", maxAttempts = 3)
		void greet(Greeting greeting) {
			this.received.add(greeting);
		}

		@JobHandler("text")
		String text(Text text, JobContext context) {
			this.received.add(text.value());
			return text.value();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HandlerConfig {

		@Bean
		Handlers handlers() {
			return new Handlers();
		}

	}

	private void inContext(String prefix, Consumer<org.springframework.context.ApplicationContext> test) {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class))
			.withUserConfiguration(HandlerConfig.class)
			.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("app.db"),
					"jobqueue.table-prefix=" + prefix, "jobqueue.worker.poll-interval=50ms",
					"jobqueue.retry.initial-backoff=10ms", "jobqueue.retry.max-backoff=20ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				test.accept(context);
			});
	}

	@Test
	void malformedJsonWrittenByHandAndPayloadsThatDoNotMapFailOnceAsInvalidInput() {
		inContext("", (context) -> {
			JobQueue queue = context.getBean(JobQueue.class);
			JdbcTemplate jdbc = new JdbcTemplate(
					context.getBean(dev.jobqueue.autoconfigure.QueueDataSource.class).dataSource());
			long now = System.currentTimeMillis();
			jdbc.update("INSERT INTO jobs (type, status, payload, max_attempts, run_at, created_at) "
					+ "VALUES ('greet', 'pending', '{\"name\": \"Ada\", ', 3, ?, ?)", now, now);
			long malformed = jdbc.queryForObject("SELECT max(id) FROM jobs", Long.class);
			jdbc.update("INSERT INTO job_events (job_id, at, event) VALUES (?, ?, 'ENQUEUED')", malformed, now);
			long wrongShape = queue.enqueue("greet", Map.of("name", "Ada", "count", "many"));
			long wrongType = queue.enqueue("greet", List.of(1, 2, 3));
			long fine = queue.enqueue("greet", new Greeting("Ada", 2));
			tried.addAndGet(3);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> jdbc.queryForObject("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')",
						Integer.class) == 0);
			for (long id : new long[] { malformed, wrongShape, wrongType }) {
				Job job = queue.find(id).orElseThrow();
				assertThat(job.status()).as("job %d", id).isEqualTo(JobStatus.FAILED);
				assertThat(job.errorCode()).as("job %d", id).isEqualTo("INVALID_INPUT:PAYLOAD");
				assertThat(job.errorDetail()).as("job %d", id).contains("does not map to").contains("Greeting");
				assertThat(job.attempts()).as("not retried").isOne();
			}
			assertThat(queue.find(fine).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(context.getBean(Handlers.class).received).containsExactly(new Greeting("Ada", 2));
		});
		assertThat(Invariants.violations(this.dir.resolve("app.db"))).isEmpty();
	}

	@Test
	void controlCharactersEmojiAndOneMegabyteStringsRoundTripExactly() {
		StringBuilder control = new StringBuilder();
		for (char c = 0; c < 32; c++) {
			control.append(c);
		}
		control.append('\u007f').append("\u2028\u2029\ufeff");
		String emoji = "😀 👩‍👩‍👧‍👦 🇺🇦 é ß 漢字 \uD834\uDD1E";
		StringBuilder big = new StringBuilder(1_000_000);
		while (big.length() < 1_000_000) {
			big.append("line ").append(big.length()).append(" ").append(emoji).append('\n');
		}
		List<String> values = List.of(control.toString(), emoji, big.toString(), "", "null", "\"quoted\"", "\\");
		inContext("", (context) -> {
			JobQueue queue = context.getBean(JobQueue.class);
			List<Long> ids = new java.util.ArrayList<>();
			for (String value : values) {
				ids.add(queue.enqueue("text", new Text(value)));
			}
			tried.addAndGet(values.size());
			await().atMost(Duration.ofSeconds(30))
				.until(() -> ids.stream()
					.allMatch((id) -> queue.find(id).orElseThrow().status() == JobStatus.SUCCEEDED));
			assertThat(context.getBean(Handlers.class).received).containsExactlyInAnyOrderElementsOf(values);
			tools.jackson.databind.json.JsonMapper mapper = tools.jackson.databind.json.JsonMapper.builder().build();
			for (int i = 0; i < values.size(); i++) {
				String result = queue.find(ids.get(i)).orElseThrow().result();
				assertThat(mapper.readValue(result, String.class)).as("result %d", i).isEqualTo(values.get(i));
			}
		});
		assertThat(Invariants.violations(this.dir.resolve("app.db"))).isEmpty();
	}

	@Test
	void loneSurrogateInAPayloadIsRefusedOrKeptExactlyNeverMangled() {
		inContext("", (context) -> {
			JobQueue queue = context.getBean(JobQueue.class);
			tried.incrementAndGet();
			String broken = "half an emoji: \uD83D end";
			long id;
			try {
				id = queue.enqueue("text", new Text(broken));
			}
			catch (JobQueueException ex) {
				assertThat(ex.getMessage()).contains("text");
				return;
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> queue.find(id).orElseThrow().status() != JobStatus.PENDING
						&& queue.find(id).orElseThrow().status() != JobStatus.RUNNING);
			assertThat(context.getBean(Handlers.class).received).containsExactly(broken);
			String result = queue.find(id).orElseThrow().result();
			assertThat(tools.jackson.databind.json.JsonMapper.builder().build().readValue(result, String.class))
				.isEqualTo(broken);
		});
	}

	@Test
	void twoAppsWithDifferentTablePrefixesShareOneFileIndependently() {
		inContext("first_", (first) -> inContext("second_", (second) -> {
			JobQueue one = first.getBean(JobQueue.class);
			JobQueue two = second.getBean(JobQueue.class);
			long a = one.enqueue("greet", new Greeting("first", 1));
			long b = two.enqueue("greet", new Greeting("second", 2));
			long c = two.enqueue("greet", new Greeting("second", 3));
			tried.incrementAndGet();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> one.find(a).orElseThrow().status() == JobStatus.SUCCEEDED
						&& two.find(b).orElseThrow().status() == JobStatus.SUCCEEDED
						&& two.find(c).orElseThrow().status() == JobStatus.SUCCEEDED);
			assertThat(first.getBean(Handlers.class).received).containsExactly(new Greeting("first", 1));
			assertThat(second.getBean(Handlers.class).received).containsExactlyInAnyOrder(new Greeting("second", 2),
					new Greeting("second", 3));
		}));
		assertThat(Invariants.violations(this.dir.resolve("app.db"), "first_")).isEmpty();
		assertThat(Invariants.violations(this.dir.resolve("app.db"), "second_")).isEmpty();
		assertThat(JobRows.count(this.dir.resolve("app.db"), "SELECT count(*) FROM first_jobs")).isOne();
		assertThat(JobRows.count(this.dir.resolve("app.db"), "SELECT count(*) FROM second_jobs")).isEqualTo(2);
	}

	private JobStatus status(long id) {
		return this.harness.queue.find(id).orElseThrow().status();
	}

}
