package dev.jobqueue.postgresql.reliability;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.postgresql.PostgresDatabase;
import dev.jobqueue.postgresql.PostgresStorage;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker whose connections the server cuts ({@code pg_terminate_backend}) while it runs
 * a job: its lease expires, another worker takes the job over, and the first worker's
 * late outcome, written once it has a connection again, is rejected by the fence (the
 * job's run counter).
 */
@PostgresTest
class PostgresConnectionLossTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	private static final int POOL_SIZE = 2;

	@Test
	void aLateOutcomeOfAWorkerThatLostItsConnectionsAndItsLeaseIsRejected() {
		try (PostgresTestDatabase db = PostgresTestDatabase.create(); HikariDataSource workerPool = pool(db.url())) {
			PostgresStorage lateWorker = new PostgresStorage(new PostgresDatabase(workerPool, db.url()),
					db.storage().tables());
			db.storage().jobs().enqueue(List.of(new NewJob("a", "{}", 0, NOW, 3, null, null)), NOW, () -> {
			});
			ClaimedJob first = lateWorker.jobs().claim(claim("late", NOW.plusSeconds(2)), NOW).get(0);

			long cut = db.count("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
					+ "WHERE datname = current_database() AND application_name = 'late-worker'");
			assertThat(cut).isPositive();

			assertThat(db.storage().jobs().recoverExpiredLeases(NOW.plusSeconds(3), 10)).isEqualTo(1);
			ClaimedJob second = db.storage()
				.jobs()
				.claim(claim("next", NOW.plusSeconds(33)), NOW.plusSeconds(3))
				.get(0);
			assertThat(second.run()).isEqualTo(first.run() + 1);

			// Each write after the cut may meet one of the pool's dead connections; the
			// pool
			// drops it and the worker's loop writes again, as here.
			boolean[] applied = null;
			for (int deadMet = 0; applied == null; deadMet++) {
				try {
					applied = lateWorker.jobs()
						.complete(List.of(Completion.succeeded(first, null)), "late", NOW.plusSeconds(4));
				}
				catch (JobQueueException ex) {
					assertThat(ex).hasMessageContaining("cannot be reached or closed the connection");
					assertThat(deadMet).as("dead connections met, at most one per pooled connection")
						.isLessThan(POOL_SIZE);
				}
			}
			assertThat(applied).containsExactly(false);
			assertThat(db.storage()
				.jobs()
				.complete(List.of(Completion.succeeded(second, null)), "next", NOW.plusSeconds(5)))
				.containsExactly(true);
			assertThat(db.storage().admin().find(first.id()).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
			assertThat(db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'SUCCEEDED'")).isOne();
			assertThat(db.column("SELECT outcome FROM job_attempts ORDER BY run")).containsExactly("LEASE_EXPIRED",
					"SUCCEEDED");
		}
	}

	private static ClaimRequest claim(String workerId, Instant leaseUntil) {
		return new ClaimRequest(workerId, 1, Set.of("a"), Map.of(), Set.of(), leaseUntil);
	}

	private static HikariDataSource pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(POOL_SIZE);
		config.addDataSourceProperty("ApplicationName", "late-worker");
		return new HikariDataSource(config);
	}

}
