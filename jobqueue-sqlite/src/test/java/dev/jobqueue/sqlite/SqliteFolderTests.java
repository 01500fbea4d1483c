package dev.jobqueue.sqlite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobQueueException;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A queue file whose folder cannot be created: the error says why and what to do, on a
 * real file system.
 */
class SqliteFolderTests {

	@TempDir
	Path dir;

	@Test
	void aFolderUnderARegularFileNamesTheFileInTheWay() throws IOException {
		Path notes = Files.writeString(this.dir.resolve("notes.txt"), "not a folder");
		Path file = notes.resolve("queue").resolve("jobs.db");
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> SqliteDataSources.create("jdbc:sqlite:" + file, Duration.ofSeconds(5), "NORMAL", 1))
			.withMessageStartingWith("Could not create the folder " + file.getParent() + " of the queue database "
					+ "jobs.db: a file named " + notes + " exists where a folder should be")
			.withMessageContaining("set jobqueue.datasource.url to a file in a writable folder");
	}

}
