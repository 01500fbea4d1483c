package dev.jobqueue.jdbc;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

import dev.jobqueue.core.store.WorkerInfo;

/**
 * The worker registry on any JDBC database: a row per running worker in
 * {@code job_workers} (its host, process, handled types and concurrency), written when it
 * starts and again as its heartbeat, deleted when it stops. The insights read it; the
 * retention store prunes the rows of workers that went silent. The types are kept as the
 * dialect keeps a list of texts ({@link Dialect#textList}).
 */
public final class JdbcWorkers {

	/** {@code %s}: the worker's types ({@link Dialect#textList}). */
	private static final String UPSERT_WORKER = """
			INSERT INTO {workers} (worker_id, host, pid, types, concurrency, started_at, heartbeat_at)
			VALUES (:worker_id, :host, :pid, %s, :concurrency, :now, :now)
			""";

	private static final String DELETE_WORKER = """
			DELETE FROM {workers} WHERE worker_id = :worker_id
			""";

	private final JdbcDatabase database;

	private final Sql upsertWorker;

	private final Sql deleteWorker;

	public JdbcWorkers(JdbcDatabase database, Tables tables) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.upsertWorker = tables.sql(tables.dialect()
			.upsert(UPSERT_WORKER.formatted(tables.dialect().textList(":types")), "worker_id",
					List.of("heartbeat_at", "types", "concurrency")));
		this.deleteWorker = tables.sql(DELETE_WORKER);
	}

	/**
	 * Registers a worker, or refreshes its row (heartbeat, types, concurrency) when it is
	 * registered.
	 */
	public void register(WorkerInfo worker, Instant now) {
		this.database.write("register worker " + worker.workerId(), (connection) -> {
			try (SqlStatement upsert = this.upsertWorker.prepare(connection)) {
				return upsert.bind("worker_id", worker.workerId())
					.bind("host", worker.host())
					.bind("pid", worker.pid())
					.bind("concurrency", worker.concurrency())
					.bind("now", now)
					.bindTextList("types", new TreeSet<>(worker.types()))
					.executeUpdate();
			}
		});
	}

	public void unregister(String workerId) {
		this.database.write("unregister worker " + workerId, (connection) -> {
			try (SqlStatement delete = this.deleteWorker.prepare(connection)) {
				return delete.bind("worker_id", workerId).executeUpdate();
			}
		});
	}

}
