package dev.jobqueue.autoconfigure;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.sqlite.SqliteDataSources;

/**
 * The DataSource the queue uses, chosen once at start-up (see {@link #choose}). Deliberately not a
 * {@link DataSource} bean, so the application's own DataSource auto-configuration, and every injection point of
 * a {@code DataSource}, is unaffected.
 */
public final class QueueDataSource implements DisposableBean {

	static final String DEFAULT_URL = "jdbc:sqlite:jobqueue.db";

	private static final Logger logger = LoggerFactory.getLogger(QueueDataSource.class);

	private final DataSource dataSource;

	private final boolean shared;

	private final String description;

	private QueueDataSource(DataSource dataSource, boolean shared, String description) {
		this.dataSource = dataSource;
		this.shared = shared;
		this.description = description;
	}

	/** Uses the application's DataSource as it is. */
	public static QueueDataSource shared(DataSource dataSource) {
		return new QueueDataSource(dataSource, true, "the application's DataSource");
	}

	/** Opens the queue's own pool on a SQLite file. */
	public static QueueDataSource own(String url, QueueProperties.Datasource properties) {
		Path file = SqliteDataSources.fileOf(url);
		DataSource dataSource = SqliteDataSources.create(url, properties.getBusyTimeout(), properties.getSynchronous(),
				properties.getPoolSize());
		return new QueueDataSource(dataSource, false, (file != null) ? file.toString() : url);
	}

	/**
	 * Chooses the queue's DataSource: {@code jobqueue.datasource.url}; else the DataSource marked
	 * {@link JobQueueDataSource @JobQueueDataSource}; else the application's single (or primary) DataSource if
	 * it is SQLite; else the queue's own {@code jobqueue.db}.
	 * @param qualified the DataSource marked {@code @JobQueueDataSource}, if any
	 * @param application the application's single or primary DataSource, if any
	 * @param candidates the names of all DataSource beans, for the message when the choice is ambiguous
	 * @throws JobQueueException when several DataSources exist and none is chosen, or the chosen one is not
	 * SQLite
	 */
	static QueueDataSource choose(QueueProperties.Datasource properties, DataSource qualified, DataSource application,
			List<String> candidates) {
		if (properties.getUrl() != null && !properties.getUrl().isBlank()) {
			return own(properties.getUrl(), properties);
		}
		if (qualified != null) {
			if (!SqliteDataSources.isSqlite(qualified)) {
				throw new JobQueueException("The DataSource marked @JobQueueDataSource is "
						+ productName(qualified) + ", but the job queue supports only SQLite for now. Mark a SQLite "
						+ "DataSource instead, or remove the annotation and set jobqueue.datasource.url to give the "
						+ "queue its own SQLite file.");
			}
			return new QueueDataSource(qualified, true, "the @JobQueueDataSource DataSource");
		}
		if (application != null) {
			if (SqliteDataSources.isSqlite(application)) {
				return shared(application);
			}
			logger.info("The application's DataSource is {}, not SQLite; the job queue uses its own file {} (set "
					+ "jobqueue.datasource.url to choose another)", productName(application), DEFAULT_URL);
			return own(DEFAULT_URL, properties);
		}
		if (candidates.size() > 1) {
			throw new JobQueueException("The application has " + candidates.size() + " DataSource beans " + candidates
					+ " and none is primary, so the job queue cannot tell which to use. Mark the one for the queue "
					+ "with @JobQueueDataSource (it must be SQLite, and queue writes then join its transactions), "
					+ "or set jobqueue.datasource.url=jdbc:sqlite:<path> to give the queue its own file.");
		}
		return own(DEFAULT_URL, properties);
	}

	private static String productName(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			return connection.getMetaData().getDatabaseProductName();
		}
		catch (SQLException ex) {
			return "a database that could not be reached (" + ex.getMessage() + ")";
		}
	}

	public DataSource dataSource() {
		return this.dataSource;
	}

	/** Whether this is the application's DataSource, so enqueue joins its transactions. */
	public boolean isShared() {
		return this.shared;
	}

	public String description() {
		return this.description;
	}

	@Override
	public void destroy() throws Exception {
		if (!this.shared && this.dataSource instanceof AutoCloseable closeable) {
			closeable.close();
		}
	}

}
