package dev.jobqueue.testing;

import java.nio.file.Path;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;

import dev.jobqueue.sqlite.SqliteDataSources;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteSchema;

/**
 * A process starting the queue on a file, as an application does at start-up: arguments
 * are the database file and the wall-clock millisecond at which to start, so that several
 * JVMs start together. Prints {@code OK}.
 */
public final class SchemaStarter {

	private SchemaStarter() {
	}

	public static void main(String[] args) throws Exception {
		long startAt = Long.parseLong(args[1]);
		while (System.currentTimeMillis() < startAt) {
			Thread.onSpinWait();
		}
		try (HikariDataSource pool = SqliteDataSources.create("jdbc:sqlite:" + args[0], Duration.ofSeconds(5), "NORMAL",
				2)) {
			new SqliteSchema(pool, SqliteDialect.tables("")).initialize();
		}
		System.out.println("OK");
	}

	public static Process launch(Path file, long startAt, Path log) throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		ProcessBuilder builder = new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp",
				System.getProperty("java.class.path"), SchemaStarter.class.getName(), file.toString(),
				String.valueOf(startAt));
		builder.redirectErrorStream(true);
		builder.redirectOutput(log.toFile());
		return builder.start();
	}

}
