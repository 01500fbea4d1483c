package dev.jobqueue.cli;

import java.util.Arrays;
import java.util.Map;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.configuration.FluentConfiguration;

import dev.jobqueue.jdbc.StoreProvider;
import dev.jobqueue.jdbc.Tables;
import dev.jobqueue.mysql.MysqlSchema;
import dev.jobqueue.postgresql.PostgresSchema;
import dev.jobqueue.sqlite.SqliteSchema;

/**
 * The queue's schema version in the database next to the newest this tool knows, read
 * with Flyway from the history table the store's migrations keep (the store's own
 * migration location, table and prefix), changing nothing.
 *
 * @param applied the version applied last, or {@code null} when none is
 * @param known the newest version of this tool's migrations
 * @param pending migrations this tool has that the database has not
 * @param newer whether the database has migrations this tool does not know
 */
record SchemaVersions(String applied, String known, int pending, boolean newer) {

	boolean behind() {
		return this.pending > 0 && this.applied != null;
	}

	static SchemaVersions read(StoreProvider store, DataSource dataSource, Tables tables, String description) {
		MigrationInfoService info = flyway(store, dataSource, tables).info();
		MigrationInfo current = info.current();
		MigrationInfo[] all = info.all();
		boolean newer = Arrays.stream(all).anyMatch((migration) -> migration.getState().name().startsWith("FUTURE"));
		String known = Arrays.stream(all)
			.filter((migration) -> !migration.getState().name().startsWith("FUTURE") && migration.getVersion() != null)
			.map((migration) -> migration.getVersion().getVersion())
			.reduce((first, second) -> second)
			.orElse("none");
		String applied = (current != null && current.getVersion() != null) ? current.getVersion().getVersion() : null;
		return new SchemaVersions(applied, known, info.pending().length, newer);
	}

	/** A database without the queue's history table: every migration is pending. */
	static SchemaVersions none(StoreProvider store, DataSource dataSource, Tables tables, String description) {
		SchemaVersions read = read(store, dataSource, tables, description);
		return new SchemaVersions(null, read.known(), read.pending(), false);
	}

	private static Flyway flyway(StoreProvider store, DataSource dataSource, Tables tables) {
		FluentConfiguration configuration = Flyway.configure(SchemaVersions.class.getClassLoader())
			.dataSource(dataSource)
			.table(tables.schemaHistory())
			.locations(location(store))
			.placeholders(Map.of("prefix", tables.prefix()))
			.createSchemas(false);
		if (tables.schema() != null) {
			configuration.schemas(tables.schema()).defaultSchema(tables.schema());
		}
		return configuration.load();
	}

	private static String location(StoreProvider store) {
		return switch (store.name()) {
			case "SQLite" -> SqliteSchema.MIGRATION_LOCATION;
			case "PostgreSQL" -> PostgresSchema.MIGRATION_LOCATION;
			case "MySQL" -> MysqlSchema.MIGRATION_LOCATION;
			default -> throw new IllegalStateException("No migrations known for " + store.name());
		};
	}

}
