package dev.jobqueue.it;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;

/**
 * An application whose own DataSource is SQLite: the queue shares it, and its writes join
 * the application's transactions.
 */
@SpringBootApplication
public class NotesApplication {

	public static void main(String[] args) {
		SpringApplication.run(NotesApplication.class, args);
	}

	public record Note(long id) {
	}

	@Service
	public static class Notes {

		private final JdbcClient jdbc;

		private final JobQueue queue;

		Notes(JdbcClient jdbc, JobQueue queue) {
			this.jdbc = jdbc;
			this.queue = queue;
		}

		/** Reads, writes a note and enqueues its indexing, all in one transaction. */
		@Transactional
		public long write(String text, boolean fail) {
			long position = this.jdbc.sql("SELECT count(*) FROM notes").query(Long.class).single();
			this.jdbc.sql("INSERT INTO notes (text, position) VALUES (?, ?)").params(text, position).update();
			long noteId = this.jdbc.sql("SELECT last_insert_rowid()").query(Long.class).single();
			long jobId = this.queue.enqueue("index", new Note(noteId));
			if (fail) {
				throw new IllegalStateException("rolled back on purpose, after job " + jobId);
			}
			return jobId;
		}

	}

	@Component
	static class Indexer {

		private final JdbcClient jdbc;

		Indexer(JdbcClient jdbc) {
			this.jdbc = jdbc;
		}

		@JobHandler(value = "index", maxAttempts = 1)
		void index(Note note) {
			int updated = this.jdbc.sql("UPDATE notes SET indexed = 1 WHERE id = ?").param(note.id()).update();
			if (updated != 1) {
				throw new IllegalStateException("note " + note.id() + " is not in the database");
			}
		}

	}

}
