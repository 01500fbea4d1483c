package dev.jobqueue.it;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A shared SQLite DataSource the queue cannot work with fails start-up, naming the
 * property to set.
 */
class SharedDataSourceStartUpTests {

	@Test
	void deferredTransactionsFailStartUpNamingTransactionMode() {
		assertThatException()
			.isThrownBy(() -> start("spring.datasource.url=jdbc:sqlite:deferred.db",
					"spring.datasource.hikari.data-source-properties.transaction_mode=DEFERRED"))
			.havingRootCause()
			.withMessageContaining("transactions begin DEFERRED")
			.withMessageContaining("spring.datasource.hikari.data-source-properties.transaction_mode=IMMEDIATE");
	}

	@Test
	void autoCommitOffFailsStartUpNamingTheProperty() {
		assertThatException()
			.isThrownBy(() -> start("spring.datasource.url=jdbc:sqlite:no-auto-commit.db",
					"spring.datasource.hikari.auto-commit=false"))
			.havingRootCause()
			.withMessageContaining("auto-commit off")
			.withMessageContaining("spring.datasource.hikari.auto-commit=true");
	}

	/**
	 * Starts the application with command-line properties, which override its
	 * application.properties.
	 */
	private static void start(String... properties) {
		String[] args = java.util.Arrays.stream(properties).map((property) -> "--" + property).toArray(String[]::new);
		new SpringApplicationBuilder(NotesApplication.class).web(WebApplicationType.NONE).run(args).close();
	}

}
