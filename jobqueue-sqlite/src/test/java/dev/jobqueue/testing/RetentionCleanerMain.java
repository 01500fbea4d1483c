package dev.jobqueue.testing;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;

import dev.jobqueue.JobStatus;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionReport;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.sqlite.SqliteDataSources;
import dev.jobqueue.sqlite.SqliteDatabase;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteRetentionStore;

/**
 * A process that runs one retention cleanup on a file, for tests that kill it half-way.
 * Prints {@code start} when the cleanup starts, {@code deleted <n>} after every committed
 * batch and {@code done <total>} at the end.
 * <p>
 * Arguments: database file, the clock's instant (epoch ms), batch size, lease owner.
 */
public final class RetentionCleanerMain {

	private RetentionCleanerMain() {
	}

	public static void main(String[] args) {
		Path file = Path.of(args[0]);
		Clock clock = Clock.fixed(Instant.ofEpochMilli(Long.parseLong(args[1])), ZoneOffset.UTC);
		int batchSize = Integer.parseInt(args[2]);
		PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
		try (HikariDataSource dataSource = SqliteDataSources.create("jdbc:sqlite:" + file, Duration.ofSeconds(5),
				"NORMAL", 2)) {
			SqliteDatabase database = new SqliteDatabase(dataSource, file.toString(), Duration.ofSeconds(30));
			SqliteRetentionStore sqlite = new SqliteRetentionStore(database, SqliteDialect.tables(""));
			DelegatingRetentionStore store = new DelegatingRetentionStore(sqlite) {
				@Override
				public int deleteFinished(JobStatus status, String type, Instant finishedBefore, int limit) {
					int deleted = super.deleteFinished(status, type, finishedBefore, limit);
					out.println("deleted " + deleted);
					return deleted;
				}
			};
			RetentionPolicy policy = RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(90), Duration.ofDays(30),
					Map.of());
			out.println("start");
			RetentionReport report = new RetentionCleaner(store, sqlite.files(),
					RetentionSettings.of(policy, batchSize), clock, args[3], () -> true)
				.purgeOnce();
			out.println("done " + report.totalDeleted());
		}
	}

}
