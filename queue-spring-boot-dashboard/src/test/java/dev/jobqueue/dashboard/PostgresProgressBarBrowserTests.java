package dev.jobqueue.dashboard;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

/**
 * {@link ProgressBarBrowserTests} with the queue on PostgreSQL, in a database of its own
 * on the test server.
 */
@ExtendWith(PostgresServer.class)
class PostgresProgressBarBrowserTests extends ProgressBarBrowserTests {

	private static String database;

	@DynamicPropertySource
	static void queueDatabase(DynamicPropertyRegistry registry) {
		registry.add("jobqueue.datasource.url", () -> {
			if (database == null) {
				database = PostgresTestDatabase.createDatabase();
			}
			return PostgresServer.urlOf(database);
		});
	}

	@AfterAll
	static void dropDatabase() {
		if (database != null) {
			PostgresTestDatabase.dropDatabase(database);
		}
	}

}
