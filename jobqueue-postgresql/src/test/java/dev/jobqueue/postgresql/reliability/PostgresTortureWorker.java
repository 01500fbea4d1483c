package dev.jobqueue.postgresql.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;

import com.zaxxer.hikari.HikariDataSource;
import tools.jackson.databind.json.JsonMapper;

import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.worker.DefaultErrorClassifier;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.core.worker.WorkerSettings;
import dev.jobqueue.jackson.JacksonPayloadCodec;
import dev.jobqueue.postgresql.PostgresDataSources;
import dev.jobqueue.postgresql.PostgresDatabase;
import dev.jobqueue.postgresql.PostgresDialect;
import dev.jobqueue.postgresql.PostgresStorage;

/**
 * A worker JVM of the PostgreSQL torture test. Arguments: database URL, worker threads,
 * lease in milliseconds, and a marker file. Job types: {@code fast} returns; {@code slow}
 * sleeps the payload's milliseconds; {@code flaky} fails its first {@code payload}
 * attempts; {@code chain} sleeps 50 ms and continues with a {@code chain} step of one
 * less while its payload is above 0 ({@code JobContext.continueWith}); {@code join} (a
 * fan-out's join) returns. Exits once the marker exists and no job is waiting, pending or
 * running.
 */
public final class PostgresTortureWorker {

	private PostgresTortureWorker() {
	}

	public static void main(String[] args) throws Exception {
		String url = args[0];
		int threads = Integer.parseInt(args[1]);
		Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
		Path marker = Path.of(args[3]);
		HikariDataSource dataSource = PostgresDataSources.create(url, null, null, threads + 2);
		PostgresStorage storage = new PostgresStorage(new PostgresDatabase(dataSource, url),
				PostgresDialect.tables(null, ""));
		storage.initializeSchema();
		HandlerRegistry handlers = new HandlerRegistry();
		handlers.register(HandlerDefinition.of("fast", (payload, context) -> null));
		handlers.register(HandlerDefinition.of("slow", (payload, context) -> {
			Thread.sleep(Long.parseLong(payload));
			return null;
		}));
		handlers.register(HandlerDefinition.of("flaky", (payload, context) -> {
			if (context.attempt() <= Integer.parseInt(payload)) {
				throw new IllegalStateException("flaky job fails attempt " + context.attempt());
			}
			return null;
		}));
		handlers.register(HandlerDefinition.of("chain", (payload, context) -> {
			// Long enough for kills to fall while steps run, between a handler's end and
			// its outcome's write.
			Thread.sleep(50);
			int left = Integer.parseInt(payload);
			if (left > 0) {
				context.continueWith("chain", left - 1);
			}
			return null;
		}));
		handlers.register(HandlerDefinition.of("join", (payload, context) -> null));
		WorkerSettings settings = new WorkerSettings(WorkerIds.newId(), threads, Duration.ofMillis(100), lease,
				Duration.ofSeconds(5), 10);
		JobWorker worker = new JobWorker(storage.jobs(), handlers,
				new JacksonPayloadCodec(JsonMapper.builder().build()), new DefaultErrorClassifier(),
				new RetryPolicy(Duration.ofMillis(20), Duration.ofMillis(200), Math::random), Clock.systemUTC(),
				settings, Executors.newFixedThreadPool(threads), WorkerListener.NONE, null);
		storage.signals(worker);
		// SIGTERM: stop claiming, let running jobs finish (or hand them back), then exit,
		// as a Spring Boot
		// application does on graceful shutdown.
		Thread stopping = new Thread(() -> {
			worker.stop();
			System.out.println("stopped on SIGTERM, loopFailures=" + worker.loopFailures());
			storage.close();
			dataSource.close();
		}, "graceful-stop");
		Runtime.getRuntime().addShutdownHook(stopping);
		worker.start();
		System.out.println("worker " + worker.workerId() + " pid " + ProcessHandle.current().pid() + " started");
		while (true) {
			Thread.sleep(200);
			if (Files.exists(marker)) {
				try (var connection = dataSource.getConnection();
						var rows = connection.createStatement()
							.executeQuery(
									"SELECT count(*) FROM jobs WHERE status IN ('waiting', 'pending', 'running')")) {
					rows.next();
					if (rows.getLong(1) == 0) {
						break;
					}
				}
				catch (java.sql.SQLException ex) {
					// The server is away (restarted in PostgresServerRestartTests): ask
					// again, as the worker does.
					System.out.println("exit check failed, trying again: " + ex.getMessage());
				}
			}
		}
		Runtime.getRuntime().removeShutdownHook(stopping);
		worker.stop();
		System.out.println("final loopFailures=" + worker.loopFailures());
		storage.close();
		dataSource.close();
		System.exit(0);
	}

}
