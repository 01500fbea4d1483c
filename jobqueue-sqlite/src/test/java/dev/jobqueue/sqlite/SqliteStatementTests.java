package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.jdbc.JsonArrays;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Statements bound by name on SQLite: instants as epoch milliseconds, lists as JSON
 * arrays.
 */
class SqliteStatementTests {

	@TempDir
	Path dir;

	@Test
	void bindsByNameAndRefusesUnknownOrMissingNames() throws Exception {
		try (TestDatabase db = TestDatabase.create(this.dir); Connection connection = db.dataSource().getConnection()) {
			Sql sql = SqliteDialect.tables("")
				.sql("SELECT :now + 0, :now * 2, :text, :missing IS NULL, :list", Map.of("list", 1));
			try (SqlStatement statement = sql.prepare(connection)) {
				statement.bind("now", Instant.ofEpochMilli(21)).bind("text", "a").bind("missing", (String) null);
				assertThatIllegalStateException().isThrownBy(statement::executeQuery).withMessageContaining(":list");
				statement.bind("now", Instant.ofEpochMilli(21))
					.bind("text", "a")
					.bind("missing", (String) null)
					.bindEach("list", List.of("x"));
				try (ResultSet rows = statement.executeQuery()) {
					rows.next();
					assertThat(rows.getLong(1)).isEqualTo(21);
					assertThat(rows.getLong(2)).isEqualTo(42);
					assertThat(rows.getString(3)).isEqualTo("a");
					assertThat(rows.getInt(4)).isEqualTo(1);
					assertThat(rows.getString(5)).isEqualTo("x");
				}
				assertThatIllegalArgumentException().isThrownBy(() -> statement.bind("nope", 1L))
					.withMessageContaining(":nope");
			}
		}
	}

	@Test
	void jsonArraysQuoteStringsAndKeepNumbersBare() {
		assertThat(JsonArrays.of(List.of("a\"b", "c\\d", "e\nf"))).isEqualTo("[\"a\\\"b\",\"c\\\\d\",\"e\\u000af\"]");
		assertThat(JsonArrays.of(List.of(1L, 22L))).isEqualTo("[1,22]");
		assertThat(JsonArrays.of(List.of())).isEqualTo("[]");
	}

}
