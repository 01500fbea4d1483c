package dev.jobqueue.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class SqlTests {

	private static final Dialect DIALECT = new Dialect() {

		@Override
		public String name() {
			return "test";
		}

		@Override
		public void setInstant(PreparedStatement statement, int position, Instant value) {
		}

		@Override
		public Instant instant(ResultSet rows, int column) {
			return null;
		}

		@Override
		public Instant instant(ResultSet rows, String column) {
			return null;
		}

		@Override
		public void setIds(PreparedStatement statement, int position, Collection<Long> ids) {
		}

		@Override
		public void setTexts(PreparedStatement statement, int position, Collection<String> texts) {
		}

		@Override
		public String fragment(String name, String parameter) {
			return "in_ids".equals(name) ? "= ANY(" + parameter + ")" : null;
		}

	};

	@Test
	void aNameUsedTwiceIsOneParameterAtTwoPositions() {
		Sql sql = Sql.parse("UPDATE t SET a = :now, b = :id WHERE c < :now", DIALECT, Map.of());
		assertThat(sql.text()).isEqualTo("UPDATE t SET a = ?, b = ? WHERE c < ?");
		assertThat(sql.positions(sql.indexOf("now"))).containsExactly(1, 3);
		assertThat(sql.positions(sql.indexOf("id"))).containsExactly(2);
	}

	@Test
	void quotedTextCommentsAndCastsHoldNoParameters() {
		Sql sql = Sql.parse("""
				SELECT strftime('%H:%M', :at), "x:y", :n::bigint[] -- :not
				FROM t /* :nor */ WHERE a = :a""", DIALECT, Map.of());
		assertThat(sql.names()).containsExactlyInAnyOrder("at", "n", "a");
		assertThat(sql.text()).contains("'%H:%M'", "\"x:y\"", "?::bigint[]", "-- :not", "/* :nor */");
	}

	@Test
	void aListParameterBecomesOnePlaceholderPerValue() {
		Sql sql = Sql.parse("SELECT 1 WHERE type IN (:types) AND run_at <= :now", DIALECT, Map.of("types", 3));
		assertThat(sql.text()).isEqualTo("SELECT 1 WHERE type IN (?, ?, ?) AND run_at <= ?");
		assertThat(sql.positions(sql.indexOf("types"))).containsExactly(1, 2, 3);
	}

	@Test
	void tablesAndFragmentsAreExpandedBeforeParsing() {
		Tables tables = new Tables(null, "jq_", DIALECT);
		Sql sql = tables.sql("SELECT id FROM {jobs} WHERE id {in_ids :ids} AND type = :type");
		assertThat(sql.text()).isEqualTo("SELECT id FROM jq_jobs WHERE id = ANY(?) AND type = ?");
		assertThat(tables.sql("SELECT id FROM {jobs} WHERE id {in_ids :ids} AND type = :type")).isSameAs(sql);
	}

	@Test
	void anUnknownFragmentIsRefusedNamingIt() {
		Tables tables = new Tables(null, "", DIALECT);
		assertThatIllegalArgumentException().isThrownBy(() -> tables.sql("SELECT 1 {for_update}"))
			.withMessageContaining("{for_update}")
			.withMessageContaining("test");
	}

	@Test
	void aPrefixThatIsNoNameIsRefusedWithAnExample() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Tables(null, "jq-", DIALECT))
			.withMessageContaining("jobqueue.table-prefix 'jq-'")
			.withMessageContaining("'jq_'");
	}

}
