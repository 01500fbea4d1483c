package dev.jobqueue.observation;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.tracing.BaggageInScope;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration;
import org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.jobqueue.autoconfigure.observation.QueueObservationAutoConfiguration;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the tracer, propagator and observation registry that Boot sets up for
 * OpenTelemetry (W3C trace context and baggage), a job carries its enqueuing trace to its
 * run whole: the run's span is a child of the enqueuing span, and the run sees the
 * enqueuing baggage and {@code tracestate}.
 */
class JobTracePropagationTests {

	private static final String INCOMING_TRACE_PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

	@TempDir
	Path dir;

	TestDatabase db;

	MutableClock clock = MutableClock.startingAt("2026-01-01T00:00:00Z");

	/** The worker, as the test's queues see its handlers: {@code harness.handlers}. */
	WorkerHarness harness;

	List<SpanData> ended = new CopyOnWriteArrayList<>();

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
	void theRunContinuesTheEnqueuingSpanWithItsBaggageAndTraceState() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
					MicrometerTracingAutoConfiguration.class, OpenTelemetrySdkAutoConfiguration.class,
					OpenTelemetryTracingAutoConfiguration.class, QueueObservationAutoConfiguration.class))
			.withPropertyValues("management.tracing.sampling.probability=1.0",
					"management.tracing.baggage.remote-fields=tenant")
			.withBean(SpanProcessor.class, () -> new Recorder(this.ended))
			.run((context) -> {
				Tracer tracer = context.getBean(Tracer.class);
				Propagator propagator = context.getBean(Propagator.class);
				AtomicReference<Span> runSpan = new AtomicReference<>();
				AtomicReference<String> tenantInRun = new AtomicReference<>();
				Map<String, String> propagatedFromRun = new LinkedHashMap<>();
				this.harness.handlers.register(HandlerDefinition.of("thumbnail", (payload, job) -> {
					Span current = tracer.currentSpan();
					runSpan.set(current);
					tenantInRun.set(tracer.getBaggage("tenant").get());
					propagator.inject(current.context(), propagatedFromRun, Map::put);
					return null;
				}));
				DefaultJobQueue queue = new DefaultJobQueue(this.db.store(), this.db.admin(), WorkerHarness.CODEC,
						this.harness.handlers, this.clock, new EnqueueLimits(3, 64 * 1024),
						context.getBean(PropagatorTraceContextSource.class));

				// An incoming request that carries vendor trace state; the application
				// adds baggage.
				Map<String, String> incoming = Map.of("traceparent", INCOMING_TRACE_PARENT, "tracestate",
						"congo=t61rcWkgMzE");
				Span request = propagator.extract(incoming, Map::get).name("POST /images").start();
				try (Tracer.SpanInScope scope = tracer.withSpan(request);
						BaggageInScope tenant = tracer.createBaggageInScope("tenant", "acme")) {
					queue.enqueue("thumbnail", "image-42");
				}
				finally {
					request.end();
				}

				assertThat(worker(context.getBean(ObservationRunInterceptor.class)).pollOnce()).isOne();

				assertThat(runSpan.get()).isNotNull();
				assertThat(runSpan.get().context().traceId()).isEqualTo(request.context().traceId());
				SpanData run = this.ended.stream()
					.filter((span) -> span.getSpanId().equals(runSpan.get().context().spanId()))
					.findFirst()
					.orElseThrow();
				assertThat(run.getParentSpanId()).isEqualTo(request.context().spanId());
				assertThat(run.getName()).isEqualTo("job thumbnail");
				assertThat(tenantInRun.get()).isEqualTo("acme");
				assertThat(propagatedFromRun).containsEntry("tracestate", "congo=t61rcWkgMzE")
					.hasEntrySatisfying("baggage", (baggage) -> assertThat(baggage).startsWith("tenant=acme"));
			});
	}

	private JobWorker worker(ObservationRunInterceptor interceptor) {
		return this.harness.interceptor(interceptor).directWorker("w1");
	}

	/** Keeps every ended span, as it ends. */
	private record Recorder(List<SpanData> ended) implements SpanProcessor {

		@Override
		public void onStart(Context parentContext, ReadWriteSpan span) {
		}

		@Override
		public boolean isStartRequired() {
			return false;
		}

		@Override
		public void onEnd(ReadableSpan span) {
			this.ended.add(span.toSpanData());
		}

		@Override
		public boolean isEndRequired() {
			return true;
		}

	}

}
