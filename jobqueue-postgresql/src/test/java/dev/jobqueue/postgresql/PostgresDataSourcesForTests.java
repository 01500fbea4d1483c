package dev.jobqueue.postgresql;

import com.zaxxer.hikari.HikariDataSource;

/** Pools on test databases. */
final class PostgresDataSourcesForTests {

	private PostgresDataSourcesForTests() {
	}

	static HikariDataSource pool(String url) {
		return PostgresDataSources.create(url, null, null, 4);
	}

}
