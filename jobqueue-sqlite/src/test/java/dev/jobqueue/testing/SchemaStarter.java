package dev.jobqueue.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariDataSource;

import dev.jobqueue.sqlite.SqliteDataSources;
import dev.jobqueue.sqlite.SqliteDialect;
import dev.jobqueue.sqlite.SqliteSchema;

/**
 * A process starting the queue on a file, as an application does at start-up. Arguments:
 * the database file, a barrier directory, the number of parties and this one's name. It
 * writes {@code ready-<name>} into the barrier and waits until every party is ready, so
 * the start-ups overlap whatever the JVMs' start-up times; then it starts the queue and
 * writes {@code done-<name>}. Prints {@code finishedBeforeMyStart=N} (start-ups of others
 * already done when this one began: 0 for every party means they overlapped) and
 * {@code OK}.
 */
public final class SchemaStarter {

	private SchemaStarter() {
	}

	public static void main(String[] args) throws Exception {
		Path file = Path.of(args[0]);
		Path barrier = Path.of(args[1]);
		int parties = Integer.parseInt(args[2]);
		String name = args[3];
		Files.writeString(barrier.resolve("ready-" + name), "");
		while (count(barrier, "ready-") < parties) {
			Thread.sleep(1);
		}
		System.out.println("finishedBeforeMyStart=" + count(barrier, "done-"));
		try (HikariDataSource pool = SqliteDataSources.create("jdbc:sqlite:" + file, Duration.ofSeconds(5), "NORMAL",
				2)) {
			new SqliteSchema(pool, SqliteDialect.tables("")).initialize();
		}
		Files.writeString(barrier.resolve("done-" + name), "");
		System.out.println("OK");
	}

	private static long count(Path barrier, String prefix) throws Exception {
		try (Stream<Path> files = Files.list(barrier)) {
			return files.filter((f) -> f.getFileName().toString().startsWith(prefix)).count();
		}
	}

}
