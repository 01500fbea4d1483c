package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A statement whose parameters have names ({@code :job_id}), parsed once into the
 * {@code ?} text that JDBC prepares and the positions of each name; a name used three
 * times is bound once. A store parses its statements when it is built
 * ({@link Tables#sql}), so a call only prepares the text and binds.
 *
 * <p>
 * Text in quotes and comments is copied as it is ({@code '%H:%M'} holds no parameter),
 * and so is a cast ({@code ::bigint[]}). A name given a list size stands for that many
 * values: {@code type IN (:types)} with three types becomes {@code type IN (?, ?, ?)}.
 * The statement is prepared by its {@link Dialect}, which may keep prepared statements
 * across transactions.
 */
public final class Sql {

	private final String text;

	private final Dialect dialect;

	/** Each name's index into {@link #positions}, in order of first appearance. */
	private final Map<String, Integer> names;

	private final int[][] positions;

	private Sql(String text, Dialect dialect, Map<String, Integer> names, int[][] positions) {
		this.text = text;
		this.dialect = dialect;
		this.names = names;
		this.positions = positions;
	}

	/**
	 * Parses {@code sql}, whose table names and dialect fragments are already expanded.
	 * @param listSizes for names that stand for a list of values, how many values; other
	 * names stand for one
	 */
	public static Sql parse(String sql, Dialect dialect, Map<String, Integer> listSizes) {
		Objects.requireNonNull(dialect, "'dialect' must not be null");
		StringBuilder text = new StringBuilder(sql.length());
		Map<String, List<Integer>> found = new LinkedHashMap<>();
		int position = 0;
		int i = 0;
		while (i < sql.length()) {
			char c = sql.charAt(i);
			int end = i + 1;
			if (c == '\'' || c == '"') {
				end = endOf(sql, String.valueOf(c), i + 1);
			}
			else if (c == '-' && sql.startsWith("--", i)) {
				end = endOf(sql, "\n", i + 2);
			}
			else if (c == '/' && sql.startsWith("/*", i)) {
				end = endOf(sql, "*/", i + 2);
			}
			else if (c == ':' && sql.startsWith("::", i)) {
				end = i + 2;
			}
			else if (c == ':' && i + 1 < sql.length() && isNameStart(sql.charAt(i + 1))) {
				end = i + 2;
				while (end < sql.length() && isNamePart(sql.charAt(end))) {
					end++;
				}
				String name = sql.substring(i + 1, end);
				int values = listSizes.getOrDefault(name, 1);
				if (values < 1) {
					throw new IllegalArgumentException("List parameter :" + name + " needs at least one value");
				}
				List<Integer> at = found.computeIfAbsent(name, (key) -> new ArrayList<>());
				for (int v = 0; v < values; v++) {
					text.append((v > 0) ? ", ?" : "?");
					at.add(++position);
				}
				i = end;
				continue;
			}
			text.append(sql, i, end);
			i = end;
		}
		if (found.size() > Long.SIZE) {
			throw new IllegalArgumentException("At most " + Long.SIZE + " parameter names per statement");
		}
		Map<String, Integer> names = new HashMap<>();
		int[][] positions = new int[found.size()][];
		for (Map.Entry<String, List<Integer>> name : found.entrySet()) {
			positions[names.size()] = name.getValue().stream().mapToInt(Integer::intValue).toArray();
			names.put(name.getKey(), names.size());
		}
		return new Sql(text.toString(), dialect, Map.copyOf(names), positions);
	}

	/**
	 * Where the quote or comment that ends with {@code close} ends; an unclosed one runs
	 * to the end.
	 */
	private static int endOf(String sql, String close, int from) {
		int at = sql.indexOf(close, from);
		return (at < 0) ? sql.length() : at + close.length();
	}

	private static boolean isNameStart(char c) {
		return Character.isLetter(c) || c == '_';
	}

	private static boolean isNamePart(char c) {
		return Character.isLetterOrDigit(c) || c == '_';
	}

	/** The text JDBC prepares, with {@code ?} for each value. */
	public String text() {
		return this.text;
	}

	public Dialect dialect() {
		return this.dialect;
	}

	/** The parameter names, for tests that bind every parameter with a sample value. */
	public Set<String> names() {
		return this.names.keySet();
	}

	int parameterCount() {
		return this.positions.length;
	}

	/**
	 * @return the index of {@code name}, for {@link #positions(int)}
	 */
	int indexOf(String name) {
		Integer index = this.names.get(name);
		if (index == null) {
			throw new IllegalArgumentException("No parameter :" + name + " in " + this.text);
		}
		return index;
	}

	int[] positions(int index) {
		return this.positions[index];
	}

	/** The name at {@code index}, for messages. */
	String nameAt(int index) {
		return this.names.entrySet()
			.stream()
			.filter((name) -> name.getValue() == index)
			.map(Map.Entry::getKey)
			.findFirst()
			.orElseThrow();
	}

	/**
	 * Prepares the statement on {@code connection} (or takes it from the dialect's
	 * statements kept for that connection); the caller closes it.
	 */
	public SqlStatement prepare(Connection connection) throws SQLException {
		return this.dialect.prepare(connection, this);
	}

	@Override
	public String toString() {
		return this.text;
	}

}
