package dev.jobqueue.autoconfigure;

import java.nio.file.Path;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

import dev.jobqueue.sqlite.SqliteDataSources;

/**
 * The DataSource the queue uses, chosen once at start-up: its own file when {@code jobqueue.datasource.url} is
 * set; else the application's DataSource when it is SQLite (then enqueue joins the application's
 * transactions); else {@code jobqueue.db} in the working directory. Deliberately not a {@link DataSource} bean,
 * so the application's own DataSource auto-configuration is unaffected.
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

	static QueueDataSource choose(QueueProperties.Datasource properties, DataSource application) {
		if (properties.getUrl() != null && !properties.getUrl().isBlank()) {
			return own(properties.getUrl(), properties);
		}
		if (application != null) {
			if (SqliteDataSources.isSqlite(application)) {
				return shared(application);
			}
			logger.info("The application's DataSource is not SQLite; the job queue uses its own file {} "
					+ "(set jobqueue.datasource.url to choose another)", DEFAULT_URL);
		}
		return own(DEFAULT_URL, properties);
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
