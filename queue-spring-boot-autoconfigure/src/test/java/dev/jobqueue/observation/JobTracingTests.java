package dev.jobqueue.observation;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobFailedException;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.RunInterceptor;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job enqueued inside a span runs in a child span of it: the trace goes through the
 * queue.
 */
class JobTracingTests {

	@TempDir
	Path dir;

	TestDatabase db;

	MutableClock clock = MutableClock.startingAt("2026-01-01T00:00:00Z");

	SimpleTracer tracer = new SimpleTracer();

	MeterRegistry meters = new SimpleMeterRegistry();

	/** The worker, as the test's queues see its handlers: {@code harness.handlers}. */
	WorkerHarness harness;

	@BeforeEach
	void setUp() {
		this.db = TestDatabase.create(this.dir);
		this.harness = new WorkerHarness(this.db, this.clock).ticker(Ticker.SYSTEM)
			.concurrency(2)
			.pollInterval(Duration.ofMillis(50))
			.lease(Duration.ofSeconds(30))
			.shutdownTimeout(Duration.ofSeconds(5))
			.maxSnoozes(3)
			.retry(new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(10), () -> 0.5))
			.workerDefaultLimits();
	}

	@AfterEach
	void tearDown() {
		this.db.close();
	}

	@Test
	void theEnqueuingSpanIsTheParentOfTheRunsSpan() {
		AtomicReference<Span> currentInHandler = new AtomicReference<>();
		this.harness.handlers.register(HandlerDefinition.of("thumbnail", (payload, context) -> {
			currentInHandler.set(this.tracer.currentSpan());
			return null;
		}));
		DefaultJobQueue queue = queue(
				new PropagatorTraceContextSource(() -> this.tracer, () -> new W3cTestPropagator(this.tracer)));
		SimpleSpan request = this.tracer.nextSpan().name("POST /images").start();
		request.context().setSampled(true);
		long id;
		try (Tracer.SpanInScope scope = this.tracer.withSpan(request)) {
			id = queue.enqueue("thumbnail", "image-42");
		}
		finally {
			request.end();
		}
		String traceId = request.context().traceId();
		assertThat(this.db.column("SELECT trace_parent FROM jobs WHERE id = ?", id))
			.containsExactly("traceparent=00-" + "0".repeat(16) + traceId + "-" + request.context().spanId() + "-01");

		worker(new ObservationRunInterceptor(observationRegistry(), null)).pollOnce();

		SimpleSpan run = this.tracer.getSpans()
			.stream()
			.filter((span) -> "job thumbnail".equals(span.getName()))
			.findFirst()
			.orElseThrow();
		assertThat(run.getTraceId()).isEqualTo(traceId);
		assertThat(run.getParentId()).isEqualTo(request.context().spanId());
		assertThat(run.getTags()).containsEntry("type", "thumbnail")
			.containsEntry("outcome", "succeeded")
			.containsEntry("job.id", String.valueOf(id));
		// A span never ended keeps its end at the epoch (0 ms), never null: the run's
		// span
		// was ended, after it started.
		assertThat(run.getStartTimestamp()).isAfter(Instant.EPOCH);
		assertThat(run.getEndTimestamp()).as("end of the run's span")
			.isAfter(Instant.EPOCH)
			.isAfterOrEqualTo(run.getStartTimestamp());
		assertThat(currentInHandler.get().context().spanId()).isEqualTo(run.getSpanId());
		assertThat(this.meters.get("jobqueue.job").tags("type", "thumbnail", "outcome", "succeeded").timer().count())
			.isOne();
	}

	@Test
	void aFailedRunIsMarkedAsAnErrorWithItsCode() {
		this.harness.handlers.register(HandlerDefinition.of("thumbnail", (payload, context) -> {
			throw new JobFailedException("DEPENDENCY:S3", "bucket unavailable", false);
		}));
		queue(new PropagatorTraceContextSource(() -> this.tracer, () -> new W3cTestPropagator(this.tracer)))
			.enqueue("thumbnail", "image-42");

		worker(new ObservationRunInterceptor(observationRegistry(), null)).pollOnce();

		SimpleSpan run = this.tracer.onlySpan();
		assertThat(run.getTags()).containsEntry("outcome", "failed").containsEntry("error.code", "DEPENDENCY:S3");
		assertThat(run.getError()).hasMessageStartingWith("DEPENDENCY:S3: ").hasMessageEndingWith("bucket unavailable");
		assertThat(this.meters.get("jobqueue.job").tags("type", "thumbnail", "outcome", "failed").timer().count())
			.isOne();
	}

	@Test
	void withoutTracerNothingIsStoredAndANoopRegistryOnlyRunsTheJob() {
		this.harness.handlers.register(HandlerDefinition.of("thumbnail", (payload, context) -> "done"));
		long id = queue(new PropagatorTraceContextSource(() -> null, () -> null)).enqueue("thumbnail", "image-42");
		assertThat(this.db.column("SELECT trace_parent FROM jobs WHERE id = ?", id)).containsOnlyNulls();

		assertThat(worker(new ObservationRunInterceptor(ObservationRegistry.NOOP, null)).pollOnce()).isOne();

		assertThat(this.db.column("SELECT status FROM jobs WHERE id = ?", id)).containsExactly("succeeded");
		assertThat(this.tracer.getSpans()).isEmpty();
	}

	@Test
	void aJobStoredWithABareTraceParentStillContinuesItsTraceAsW3cOrB3() {
		ClaimedJob job = claimed("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
		Map<String, String> carrier = new JobObservationContext(job).getCarrier();
		assertThat(JobObservationContext.header(carrier, "traceparent"))
			.isEqualTo("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
		assertThat(JobObservationContext.header(carrier, "b3"))
			.isEqualTo("0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1");
		assertThat(JobObservationContext.header(carrier, "X-B3-SpanId")).isEqualTo("b7ad6b7169203331");
		Map<String, String> malformed = new JobObservationContext(claimed("00-zz-b7ad6b7169203331-01")).getCarrier();
		assertThat(JobObservationContext.header(malformed, "b3")).isNull();
		assertThat(new JobObservationContext(claimed(null)).getCarrier()).isEmpty();
	}

	@Test
	void storedHeadersAreHandedBackAsWritten() {
		ClaimedJob job = claimed("traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\n"
				+ "tracestate=congo=t61rcWkgMzE\nbaggage=tenant=acme");
		Map<String, String> carrier = new JobObservationContext(job).getCarrier();
		assertThat(JobObservationContext.header(carrier, "tracestate")).isEqualTo("congo=t61rcWkgMzE");
		assertThat(JobObservationContext.header(carrier, "baggage")).isEqualTo("tenant=acme");
		assertThat(JobObservationContext.header(carrier, "b3")).isNull();
	}

	private static ClaimedJob claimed(String traceContext) {
		Instant now = Instant.parse("2026-01-01T00:00:00Z");
		return new ClaimedJob(1, "thumbnail", "{}", 0, 1, 1, 3, 0, now, now, traceContext);
	}

	private ObservationRegistry observationRegistry() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig()
			.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new PropagatingReceiverTracingObservationHandler<>(this.tracer, new W3cTestPropagator(this.tracer)),
					new DefaultTracingObservationHandler(this.tracer)))
			.observationHandler(new DefaultMeterObservationHandler(this.meters));
		return registry;
	}

	private DefaultJobQueue queue(PropagatorTraceContextSource traceContext) {
		return new DefaultJobQueue(this.db.store(), this.db.admin(), WorkerHarness.CODEC, this.harness.handlers,
				this.clock, new EnqueueLimits(3, 64 * 1024), traceContext);
	}

	private JobWorker worker(RunInterceptor interceptor) {
		return this.harness.interceptor(interceptor).directWorker("w1");
	}

}
