package dev.jobqueue.jdbc;

import java.util.Objects;
import java.util.function.Function;

import dev.jobqueue.core.store.JobAdminStore;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.core.store.RetentionStore;
import dev.jobqueue.core.store.ScheduleStore;

/**
 * The queue on one JDBC database: its job, admin, schedule and retention stores and its
 * insights share the database. A store module subclasses it with its own parts (typed, so
 * its tests reach what only that store has) and its {@link JdbcSchema}, which migrates
 * and verifies the schema.
 *
 * @param <J> the job store
 * @param <A> the admin store
 * @param <S> the schedule store
 * @param <R> the retention store
 * @param <I> the insights
 */
public abstract class JdbcStorage<J extends JdbcJobStore, A extends JobAdminStore, S extends ScheduleStore, R extends RetentionStore, I extends QueueInsights>
		implements QueueStorage {

	private final J jobs;

	private final A admin;

	private final S schedules;

	private final R retention;

	private final I insights;

	private final JdbcSchema schema;

	/**
	 * @param admin makes the admin store on the job store
	 * @param schedules makes the schedule store on the job store (a tick inserts its job
	 * in the transaction that advances the schedule)
	 * @param schema the queue's schema on the database
	 */
	protected JdbcStorage(J jobs, Function<J, A> admin, Function<J, S> schedules, R retention, I insights,
			JdbcSchema schema) {
		this.jobs = Objects.requireNonNull(jobs, "'jobs' must not be null");
		this.admin = admin.apply(jobs);
		this.schedules = schedules.apply(jobs);
		this.retention = Objects.requireNonNull(retention, "'retention' must not be null");
		this.insights = Objects.requireNonNull(insights, "'insights' must not be null");
		this.schema = Objects.requireNonNull(schema, "'schema' must not be null");
	}

	public JdbcDatabase database() {
		return this.jobs.database();
	}

	public Tables tables() {
		return this.jobs.tables();
	}

	@Override
	public String description() {
		return database().location();
	}

	@Override
	public J jobs() {
		return this.jobs;
	}

	@Override
	public A admin() {
		return this.admin;
	}

	@Override
	public S schedules() {
		return this.schedules;
	}

	@Override
	public R retention() {
		return this.retention;
	}

	@Override
	public I insights() {
		return this.insights;
	}

	/** Checks the connection settings (or the server), then migrates the schema. */
	@Override
	public void initializeSchema() {
		this.schema.initialize();
	}

	/**
	 * Checks the connection settings (or the server) and that the schema is up to date,
	 * changing nothing.
	 */
	@Override
	public void verifySchema() {
		this.schema.verify();
	}

	/** The schema's version next to the store's newest, changing nothing. */
	public SchemaVersions schemaVersions() {
		return this.schema.versions();
	}

	@Override
	public long lockRetries() {
		return database().retries();
	}

}
