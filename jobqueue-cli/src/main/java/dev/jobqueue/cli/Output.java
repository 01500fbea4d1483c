package dev.jobqueue.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;

import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import dev.jobqueue.jackson.JobQueueJacksonModule;

/**
 * Where a command writes its answer: JSON for scripts ({@code --json}, statuses in lower
 * case as the endpoint writes them, instants as ISO-8601), else lines for a person.
 */
final class Output {

	private static final JsonMapper JSON = JsonMapper.builder()
		.addModule(new JobQueueJacksonModule())
		.enable(SerializationFeature.INDENT_OUTPUT)
		.build();

	private final PrintWriter out;

	private final boolean json;

	Output(PrintWriter out, boolean json) {
		this.out = out;
		this.json = json;
	}

	boolean json() {
		return this.json;
	}

	void json(Object value) {
		this.out.println(JSON.writeValueAsString(value));
		this.out.flush();
	}

	void line(String text) {
		this.out.println(text);
	}

	void line(String format, Object... args) {
		this.out.println(String.format(format, args));
	}

	void flush() {
		this.out.flush();
	}

	/** How long ago {@code then} was, as {@code 3m 12s}; {@code -} when never. */
	static String ago(Instant then, Instant now) {
		if (then == null) {
			return "-";
		}
		return duration(Duration.between(then, now)) + " ago";
	}

	/** A duration as a person reads it: {@code 2d 3h}, {@code 4m 5s}, {@code 120ms}. */
	static String duration(Duration duration) {
		if (duration.isNegative()) {
			return "in " + duration(duration.negated());
		}
		long seconds = duration.getSeconds();
		if (seconds == 0) {
			return duration.toMillis() + "ms";
		}
		long days = seconds / 86400;
		long hours = seconds % 86400 / 3600;
		long minutes = seconds % 3600 / 60;
		long secs = seconds % 60;
		if (days > 0) {
			return (hours > 0) ? days + "d " + hours + "h" : days + "d";
		}
		if (hours > 0) {
			return (minutes > 0) ? hours + "h " + minutes + "m" : hours + "h";
		}
		if (minutes > 0) {
			return (secs > 0) ? minutes + "m " + secs + "s" : minutes + "m";
		}
		return secs + "s";
	}

	/** A size in bytes as {@code 1.2 MiB}. */
	static String bytes(long bytes) {
		if (bytes < 1024) {
			return bytes + " B";
		}
		String[] units = { "KiB", "MiB", "GiB", "TiB" };
		double value = bytes;
		int unit = -1;
		while (value >= 1024 && unit < units.length - 1) {
			value /= 1024;
			unit++;
		}
		return String.format("%.1f %s", value, units[unit]);
	}

}
