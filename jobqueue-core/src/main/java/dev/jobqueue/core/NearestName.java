package dev.jobqueue.core;

import java.util.Collection;

/**
 * The "did you mean" of the queue's warnings: the known name nearest to one that is not
 * known, if the two are near enough that the difference is a slip of the keyboard.
 */
public final class NearestName {

	private NearestName() {
	}

	/**
	 * The candidate nearest to {@code name}, if it is near enough to be a slip (a few
	 * letters apart), else {@code null}.
	 */
	public static String nearest(String name, Collection<String> candidates) {
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (String candidate : candidates) {
			int distance = distance(name, candidate);
			if (distance < bestDistance) {
				best = candidate;
				bestDistance = distance;
			}
		}
		return (bestDistance <= Math.max(2, name.length() / 5)) ? best : null;
	}

	/** The edit distance between two names (insertions, deletions, substitutions). */
	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}
