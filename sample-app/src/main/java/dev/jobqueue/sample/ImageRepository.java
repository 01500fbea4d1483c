package dev.jobqueue.sample;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The application's own data, in the file the queue shares. */
@Repository
public class ImageRepository {

	private final JdbcClient jdbc;

	public ImageRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	public long insert(String name, int width, int height, Instant now) {
		return this.jdbc.sql("INSERT INTO images (name, width, height, uploaded_at) VALUES (?, ?, ?, ?) RETURNING id")
			.params(name, width, height, now.toEpochMilli())
			.query(Long.class)
			.single();
	}

	public Optional<Image> find(long id) {
		return this.jdbc.sql("SELECT * FROM images WHERE id = ?")
			.param(id)
			.query((rows, n) -> new Image(rows.getLong("id"), rows.getString("name"), rows.getInt("width"),
					rows.getInt("height"), rows.getString("tags"), rows.getString("caption"),
					rows.getString("thumbnail"), Instant.ofEpochMilli(rows.getLong("uploaded_at")),
					rows.getString("scan"), rows.getString("published_url")))
			.optional();
	}

	public List<Long> recentIds(int limit) {
		return this.jdbc.sql("SELECT id FROM images ORDER BY id DESC LIMIT ?").param(limit).query(Long.class).list();
	}

	public void setTags(long id, String tags) {
		this.jdbc.sql("UPDATE images SET tags = ? WHERE id = ?").params(tags, id).update();
	}

	public void setCaption(long id, String caption) {
		this.jdbc.sql("UPDATE images SET caption = ? WHERE id = ?").params(caption, id).update();
	}

	public void setThumbnail(long id, String thumbnail) {
		this.jdbc.sql("UPDATE images SET thumbnail = ? WHERE id = ?").params(thumbnail, id).update();
	}

	public void setScan(long id, String scan) {
		this.jdbc.sql("UPDATE images SET scan = ? WHERE id = ?").params(scan, id).update();
	}

	public void setPublishedUrl(long id, String url) {
		this.jdbc.sql("UPDATE images SET published_url = ? WHERE id = ?").params(url, id).update();
	}

	/**
	 * The tags of these images, as stored (comma-separated, or null when not tagged yet).
	 */
	public List<String> tagsOf(List<Long> ids) {
		if (ids.isEmpty()) {
			return List.of();
		}
		String marks = String.join(",", java.util.Collections.nCopies(ids.size(), "?"));
		return this.jdbc.sql("SELECT tags FROM images WHERE id IN (" + marks + ")")
			.params(ids.toArray())
			.query((rows, n) -> rows.getString("tags"))
			.list();
	}

	public long count() {
		return this.jdbc.sql("SELECT count(*) FROM images").query(Long.class).single();
	}

}
