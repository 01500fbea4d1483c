package dev.jobqueue.jdbc;

import java.util.List;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.core.store.QueueStorage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class StoreProvidersTests {

	private final StoreProvider sqlite = new Named("SQLite", "jdbc:sqlite:");

	private final StoreProvider postgresql = new Named("PostgreSQL", "jdbc:postgresql:");

	@Test
	void theStoreThatServesAUrlIsFound() {
		StoreProviders stores = new StoreProviders(List.of(this.sqlite, this.postgresql));
		assertThat(stores.forUrl("jdbc:postgresql://db/app")).isSameAs(this.postgresql);
		assertThat(stores.forUrl("jdbc:sqlite:jobs.db")).isSameAs(this.sqlite);
	}

	@Test
	void aUrlNoStoreServesNamesTheUrlWithoutItsPasswordAndTheStoresFound() {
		StoreProviders stores = new StoreProviders(List.of(this.sqlite, this.postgresql));
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> stores.forUrl("jdbc:h2:mem:app;user=sa;password=secret"))
			.withMessageContaining("jdbc:h2:mem:app;user=sa;password=***")
			.withMessageNotContaining("secret")
			.withMessageContaining("SQLite (dev.jobqueue:test-sqlite), PostgreSQL (dev.jobqueue:test-postgresql)")
			.withMessageContaining("add the store module");
	}

	@Test
	void twoStoresClaimingOneUrlAreBothNamed() {
		StoreProviders stores = new StoreProviders(List.of(this.sqlite, new Named("Other SQLite", "jdbc:sqlite:")));
		assertThatExceptionOfType(JobQueueException.class).isThrownBy(() -> stores.forUrl("jdbc:sqlite:jobs.db"))
			.withMessageContaining(
					"SQLite (dev.jobqueue:test-sqlite) and Other SQLite (dev.jobqueue:test-other sqlite)")
			.withMessageContaining("Keep only one");
	}

	@Test
	void urlsShowNoPasswords() {
		assertThat(JdbcUrls.withoutCredentials("jdbc:postgresql://db/app?user=q&password=s3cret&ssl=true"))
			.isEqualTo("jdbc:postgresql://db/app?user=q&password=***&ssl=true");
		assertThat(JdbcUrls.withoutCredentials("jdbc:mysql://queue:s3cret@db:3306/app"))
			.isEqualTo("jdbc:mysql://queue:***@db:3306/app");
	}

	private record Named(String name, String prefix) implements StoreProvider {

		@Override
		public String module() {
			return "dev.jobqueue:test-" + this.name.toLowerCase(java.util.Locale.ROOT);
		}

		@Override
		public boolean servesUrl(String url) {
			return url.startsWith(this.prefix);
		}

		@Override
		public boolean servesProduct(String productName) {
			return false;
		}

		@Override
		public String missingSupport(ClassLoader classLoader, String where) {
			return null;
		}

		@Override
		public DataSource openDataSource(String url, StoreSettings settings) {
			throw new UnsupportedOperationException();
		}

		@Override
		public QueueStorage createStorage(DataSource dataSource, String description, boolean shared,
				StoreSettings settings) {
			throw new UnsupportedOperationException();
		}

	}

}
