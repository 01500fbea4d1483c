package dev.jobqueue.benchmarks;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.autoconfigure.QueueWorker;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.sqlite.SqliteDatabase;
import dev.jobqueue.sqlite.SqliteStorage;

/**
 * The queue as a user runs it: a Spring Boot application with the starter, actuator, a
 * Prometheus meter registry and the observation registry, the handler a
 * {@link JobHandler @JobHandler} method, and the {@link JobQueue} bean as injected. The
 * queue has its own pool ({@code jobqueue.datasource.url}) on the benchmark's SQLite file
 * or PostgreSQL database, or shares the application's DataSource on the file.
 */
final class StarterNode implements AutoCloseable {

	/** What the handler of the running application does with each job. */
	interface Handler {

		void handle(Payload payload, JobContext context);

	}

	private static volatile Handler handler = (payload, context) -> {
	};

	private static volatile WorkerListener listener = WorkerListener.NONE;

	final ConfigurableApplicationContext context;

	final JobQueue queue;

	/**
	 * Starts the application on a SQLite file; its worker (when
	 * {@code workerThreads > 0}) starts only when {@link #startWorker()} is called.
	 */
	StarterNode(Db db, int workerThreads, boolean virtual, Duration pollInterval, Handler handler,
			WorkerListener listener) {
		this(db, false, workerThreads, virtual, pollInterval, handler, listener);
	}

	/**
	 * @param shared whether the queue shares the application's DataSource
	 * ({@code spring.datasource.*}, set up as the sample application does), or has its
	 * own pool ({@code jobqueue.datasource.url})
	 */
	StarterNode(Db db, boolean shared, int workerThreads, boolean virtual, Duration pollInterval, Handler handler,
			WorkerListener listener) {
		this(shared ? sharedSqlite(db) : ownPool(db.url, db.synchronous), NoopHandler.class, workerThreads, virtual,
				pollInterval, handler, listener);
	}

	/**
	 * Starts the application with the queue's own pool on a SQLite file, the benchmark's
	 * job type handled by the {@link JobHandler @JobHandler} method of
	 * {@code handlerBean} (a bean of the application, such as one of
	 * {@link FlowHandlers}); its worker starts on {@link #startWorker()}.
	 * @param properties more properties of the application (placeholders of the handler's
	 * attributes)
	 */
	StarterNode(Db db, Class<?> handlerBean, Map<String, Object> properties, int workerThreads, Duration pollInterval,
			Handler handler, WorkerListener listener) {
		this(with(ownPool(db.url, db.synchronous), properties), handlerBean, workerThreads, false, pollInterval,
				handler, listener);
	}

	/**
	 * Starts the application with the queue's own pool on a PostgreSQL database, sized as
	 * the starter sizes it by default; its worker starts on {@link #startWorker()}.
	 * @param postgresUrl a {@code jdbc:postgresql:} URL of a database the queue migrates
	 */
	StarterNode(String postgresUrl, int workerThreads, Duration pollInterval, Handler handler,
			WorkerListener listener) {
		this(postgresUrl, NoopHandler.class, Map.of(), workerThreads, pollInterval, handler, listener);
	}

	/**
	 * As above, the benchmark's job type handled by the {@link JobHandler @JobHandler}
	 * method of {@code handlerBean}, with more {@code properties}.
	 */
	StarterNode(String postgresUrl, Class<?> handlerBean, Map<String, Object> properties, int workerThreads,
			Duration pollInterval, Handler handler, WorkerListener listener) {
		this(with(ownPool(postgresUrl, null), properties), handlerBean, workerThreads, false, pollInterval, handler,
				listener);
	}

	private StarterNode(Map<String, Object> database, Class<?> handlerBean, int workerThreads, boolean virtual,
			Duration pollInterval, Handler handler, WorkerListener listener) {
		StarterNode.handler = handler;
		StarterNode.listener = listener;
		Map<String, Object> properties = new HashMap<>(database);
		properties.put("jobqueue.worker.enabled", workerThreads > 0);
		properties.put("jobqueue.worker.auto-startup", false);
		properties.put("jobqueue.worker.concurrency", Math.max(1, workerThreads));
		properties.put("jobqueue.worker.virtual-threads", virtual);
		properties.put("jobqueue.worker.poll-interval", pollInterval.toMillis() + "ms");
		properties.put("jobqueue.scheduling.enabled", false);
		properties.put("management.endpoints.access.default", "unrestricted");
		properties.put("spring.main.register-shutdown-hook", false);
		// The handler's class is a source of the application, so it is a bean as a
		// user's @Component is, and its @JobHandler attributes are read as they are.
		this.context = new SpringApplicationBuilder(Application.class, handlerBean).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties(properties)
			.run();
		this.queue = this.context.getBean(JobQueue.class);
	}

	/**
	 * The queue's own pool on the URL, and no application DataSource.
	 * @param synchronous SQLite's synchronous mode, or {@code null} on PostgreSQL
	 */
	private static Map<String, Object> ownPool(String url, String synchronous) {
		Map<String, Object> properties = new HashMap<>();
		properties.put("jobqueue.datasource.url", url);
		if (synchronous != null) {
			properties.put("jobqueue.datasource.synchronous", synchronous);
		}
		properties.put("spring.autoconfigure.exclude",
				"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration");
		return properties;
	}

	private static Map<String, Object> with(Map<String, Object> properties, Map<String, Object> more) {
		Map<String, Object> all = new HashMap<>(properties);
		all.putAll(more);
		return all;
	}

	/**
	 * As the sample application sets it up: the queue's pragmas as driver properties, and
	 * transactions that take the write lock when they begin.
	 */
	private static Map<String, Object> sharedSqlite(Db db) {
		Map<String, Object> properties = new HashMap<>();
		properties.put("spring.datasource.url", db.url);
		properties.put("spring.datasource.hikari.maximum-pool-size", 4);
		properties.put("spring.datasource.hikari.data-source-properties.journal_mode", "WAL");
		properties.put("spring.datasource.hikari.data-source-properties.synchronous", db.synchronous);
		properties.put("spring.datasource.hikari.data-source-properties.foreign_keys", true);
		properties.put("spring.datasource.hikari.data-source-properties.busy_timeout", 5000);
		properties.put("spring.datasource.hikari.data-source-properties.transaction_mode", "IMMEDIATE");
		return properties;
	}

	/** The queue's SQLite database, as the starter built it (SQLite only). */
	SqliteDatabase database() {
		return this.context.getBean(SqliteStorage.class).database();
	}

	void startWorker() {
		this.context.getBean(QueueWorker.class).start();
	}

	/** What the application context holds of the telemetry a user's application has. */
	String telemetry() {
		return "meter registry "
				+ this.context.getBeanProvider(MeterRegistry.class)
					.stream()
					.map((registry) -> registry.getClass().getSimpleName())
					.toList()
				+ ", observation registry "
				+ this.context.getBeanProvider(ObservationRegistry.class)
					.stream()
					.map((registry) -> registry.isNoop() ? "no-op" : "recording")
					.toList();
	}

	@Override
	public void close() {
		this.context.close();
	}

	/** Runs the handler of the running application; for the handler beans' methods. */
	static void handle(Payload payload, JobContext context) {
		handler.handle(payload, context);
	}

	/**
	 * The application: auto-configuration and the listener; its handler bean is the other
	 * source the node starts it with.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean
		WorkerListener benchmarkWorkerListener() {
			return new WorkerListener() {
				@Override
				public void finished(dev.jobqueue.core.store.ClaimedJob job,
						dev.jobqueue.core.store.Completion completion, Duration queueWait, Duration execution) {
					listener.finished(job, completion, queueWait, execution);
				}
			};
		}

	}

	/** The benchmark's type without limits, as most handlers are declared. */
	static class NoopHandler {

		@JobHandler(QueueNode.TYPE)
		public void run(Payload payload, JobContext context) {
			handle(payload, context);
		}

	}

}
