package dev.jobqueue.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.jobqueue.JobStatus;
import dev.jobqueue.views.QueueSnapshot.ErrorCount;
import dev.jobqueue.views.QueueSnapshot;

/**
 * The queue's gauges, read from the latest {@link QueueSnapshot} (see
 * {@link QueueSnapshotRefresher}), never from the database at scrape time. Names as
 * Prometheus shows them:
 * <ul>
 * <li>{@code jobqueue_jobs{status,type}}: jobs per status and type (every status of every
 * known type, zeros included).</li>
 * <li>{@code jobqueue_oldest_age_seconds{status}}: for {@code pending}, how long the
 * oldest claimable job (due, not waiting out a backoff) has waited; for {@code running},
 * how long ago the oldest running job was claimed; 0 when there is none.</li>
 * <li>{@code jobqueue_errors{error_code}}: failed and retrying jobs per error code, the
 * Top-N ({@code jobqueue.observability.top-errors}) by name and the rest under
 * {@code OTHER}, so the tag's cardinality stays bounded whatever codes handlers
 * produce.</li>
 * <li>{@code jobqueue_retries{attempts}}: unfinished and failed jobs per attempts used
 * ({@code 0} to {@code 9}, then {@code 10+}).</li>
 * <li>{@code jobqueue_jobs_throttled{type,reason}}: per type with flow control that this
 * process handles, its due jobs held back by each limit, {@code reason} one of
 * {@code rate-limit}, {@code key-rate-limit}, {@code key-limit} and {@code blocked}
 * (every reason, zeros included; see {@link QueueSnapshot.FlowState}), and
 * {@code jobqueue_keys_blocked{type}}: its keys blocked by a failed job. Never a tag per
 * key: the cardinality is that of the handled types.</li>
 * <li>{@code jobqueue_stuck}, {@code jobqueue_unhandled} (pending jobs of types no live
 * worker handles), {@code jobqueue_workers} (live workers),
 * {@code jobqueue_sqlite_size_bytes{file=database|wal}},
 * {@code jobqueue_sqlite_free_pages} and the counter
 * {@code jobqueue_sqlite_busy_retries_total}.</li>
 * </ul>
 */
public class QueueMetrics implements MeterBinder {

	/** The {@code error_code} tag value that sums every code outside the Top-N. */
	public static final String OTHER = "OTHER";

	static final int RETRY_BUCKETS = 10;

	private final int topErrors;

	private final LongSupplier busyRetries;

	private final List<Bound> bound = new CopyOnWriteArrayList<>();

	private volatile QueueSnapshot snapshot;

	/**
	 * @param refresher where snapshots come from
	 * @param topErrors error codes reported by name
	 * @param busyRetries writes retried because the database was locked, or {@code null}
	 */
	public QueueMetrics(QueueSnapshotRefresher refresher, int topErrors, LongSupplier busyRetries) {
		this.topErrors = Math.max(1, topErrors);
		this.busyRetries = busyRetries;
		refresher.addConsumer(this::update);
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("jobqueue.oldest.age", this, (metrics) -> metrics.oldestAge(JobStatus.PENDING))
			.tag("status", "pending")
			.baseUnit("seconds")
			.description("How long the oldest claimable pending job has waited since it was due")
			.register(registry);
		Gauge.builder("jobqueue.oldest.age", this, (metrics) -> metrics.oldestAge(JobStatus.RUNNING))
			.tag("status", "running")
			.baseUnit("seconds")
			.description("How long ago the oldest running job was claimed")
			.register(registry);
		Gauge.builder("jobqueue.stuck", this, (metrics) -> metrics.value((s) -> s.stuck().count()))
			.description("Running jobs without heartbeat for longer than jobqueue.observability.stuck-after")
			.register(registry);
		Gauge
			.builder("jobqueue.unhandled", this,
					(metrics) -> metrics.value((s) -> s.unhandled().values().stream().mapToLong(Long::longValue).sum()))
			.description("Pending jobs of types that no live worker handles")
			.register(registry);
		Gauge
			.builder("jobqueue.workers", this,
					(metrics) -> metrics
						.value((s) -> s.workers().stream().filter(QueueSnapshot.WorkerState::alive).count()))
			.description("Live workers")
			.register(registry);
		Gauge.builder("jobqueue.sqlite.size", this, (metrics) -> metrics.value((s) -> s.storage().databaseBytes()))
			.tag("file", "database")
			.baseUnit(BaseUnits.BYTES)
			.description("Size of the SQLite database file")
			.register(registry);
		Gauge.builder("jobqueue.sqlite.size", this, (metrics) -> metrics.value((s) -> s.storage().walBytes()))
			.tag("file", "wal")
			.baseUnit(BaseUnits.BYTES)
			.description("Size of the SQLite write-ahead log")
			.register(registry);
		Gauge.builder("jobqueue.sqlite.free.pages", this, (metrics) -> metrics.value((s) -> s.storage().freePages()))
			.description("Unused pages in the SQLite database file")
			.register(registry);
		if (this.busyRetries != null) {
			FunctionCounter.builder("jobqueue.sqlite.busy.retries", this.busyRetries, LongSupplier::getAsLong)
				.description("Writes retried because the database stayed locked beyond busy_timeout")
				.register(registry);
		}
		Bound meters = new Bound(
				MultiGauge.builder("jobqueue.jobs").description("Jobs per status and type").register(registry),
				MultiGauge.builder("jobqueue.errors")
					.description("Failed and retrying jobs per error code (Top-N, the rest as OTHER)")
					.register(registry),
				MultiGauge.builder("jobqueue.retries")
					.description("Unfinished and failed jobs per attempts used")
					.register(registry),
				MultiGauge.builder("jobqueue.jobs.throttled")
					.description("Due jobs held back by flow control, per type and reason")
					.register(registry),
				MultiGauge.builder("jobqueue.keys.blocked")
					.description("Keys of an ordered type held by a job that failed for good")
					.register(registry));
		this.bound.add(meters);
		QueueSnapshot current = this.snapshot;
		if (current != null) {
			meters.update(current, this.topErrors);
		}
	}

	/**
	 * Takes a new snapshot: the plain gauges read it, the tagged ones get their rows
	 * replaced.
	 */
	void update(QueueSnapshot snapshot) {
		this.snapshot = snapshot;
		for (Bound meters : this.bound) {
			meters.update(snapshot, this.topErrors);
		}
	}

	private double oldestAge(JobStatus status) {
		QueueSnapshot current = this.snapshot;
		if (current == null) {
			return 0;
		}
		return ((status == JobStatus.PENDING) ? current.oldestClaimableAge() : current.oldestRunningAge()).toMillis()
				/ 1000.0;
	}

	private double value(java.util.function.ToLongFunction<QueueSnapshot> reader) {
		QueueSnapshot current = this.snapshot;
		return (current != null) ? reader.applyAsLong(current) : 0;
	}

	/**
	 * The error_code rows: the Top-N by name, the rest summed under OTHER (always
	 * present).
	 */
	static Map<String, Long> errorRows(QueueSnapshot.ErrorSummary errors, int topErrors) {
		Map<String, Long> rows = new TreeMap<>();
		long other = errors.other();
		int listed = 0;
		for (ErrorCount error : errors.top()) {
			if (listed++ < topErrors && !OTHER.equals(error.code())) {
				rows.put(error.code(), error.count());
			}
			else {
				other += error.count();
			}
		}
		rows.put(OTHER, other);
		return rows;
	}

	/** The attempts rows: 0 to 9 by value, the rest as 10+. */
	static Map<String, Long> retryRows(Map<Integer, Long> retries) {
		Map<String, Long> rows = new TreeMap<>();
		retries.forEach((attempts, count) -> rows
			.merge((attempts < RETRY_BUCKETS) ? String.valueOf(attempts) : RETRY_BUCKETS + "+", count, Long::sum));
		return rows;
	}

	private record Bound(MultiGauge jobs, MultiGauge errors, MultiGauge retries, MultiGauge throttled,
			MultiGauge blockedKeys) {

		void update(QueueSnapshot snapshot, int topErrors) {
			List<MultiGauge.Row<?>> jobRows = new ArrayList<>();
			snapshot.counts().forEach((type, byStatus) -> {
				for (JobStatus status : JobStatus.values()) {
					jobRows.add(MultiGauge.Row.of(Tags.of("status", status.dbValue(), "type", type),
							byStatus.getOrDefault(status, 0L)));
				}
			});
			this.jobs.register(jobRows, true);
			List<MultiGauge.Row<?>> errorRows = new ArrayList<>();
			errorRows(snapshot.errors(), topErrors)
				.forEach((code, count) -> errorRows.add(MultiGauge.Row.of(Tags.of("error_code", code), count)));
			this.errors.register(errorRows, true);
			List<MultiGauge.Row<?>> retryRows = new ArrayList<>();
			retryRows(snapshot.retries())
				.forEach((attempts, count) -> retryRows.add(MultiGauge.Row.of(Tags.of("attempts", attempts), count)));
			this.retries.register(retryRows, true);
			List<MultiGauge.Row<?>> throttledRows = new ArrayList<>();
			List<MultiGauge.Row<?>> blockedRows = new ArrayList<>();
			snapshot.flow().forEach((type, state) -> {
				state.throttled()
					.forEach((reason, count) -> throttledRows
						.add(MultiGauge.Row.of(Tags.of("type", type, "reason", reason), count)));
				blockedRows.add(MultiGauge.Row.of(Tags.of("type", type), state.blockedKeys()));
			});
			this.throttled.register(throttledRows, true);
			this.blockedKeys.register(blockedRows, true);
		}

	}

}
