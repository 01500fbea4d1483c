package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.RateLimit;

/**
 * What a claim takes when jobs carry keys or types have flow control, decided the same
 * way on every store. The store reads, in its own SQL and inside the claim's transaction,
 * what each claimed type offers (its due jobs without a key in claim order, the keys it
 * visits with their due jobs and their state, the starts in its rate windows); this class
 * chooses from it, and says which starts to record and when a job held back by a rate
 * limit may start. One instance per store, so per process: it keeps each type's key
 * cursor.
 *
 * <p>
 * The rules:
 * <ol>
 * <li><b>Rounds across keys.</b> Within one key, jobs go in enqueue order (id), due ones
 * only. Each claim visits a type's keys that have pending jobs in key order, starting
 * after the type's cursor (the last key this process claimed, or passed over as blocked)
 * and wrapping around, at most {@link #keysToVisit} of them. A key's job gets the round
 * of its rank within its key in this claim; a job without a key gets its rank among the
 * claim's jobs without a key (in claim order: priority, due time, id, whatever their
 * type). Candidates are taken by {@link #ROUND_ORDER}: priority first, then round, then
 * due time and id. So within a priority keys take turns, one key's backlog does not hold
 * back another key's job beyond a round, a flood of low-priority jobs never starves
 * higher-priority ones, and a claim without keyed jobs takes what it always took.</li>
 * <li><b>Limits per key</b> (only where the handler sets them): at most
 * {@code keyConcurrency} running jobs of a key; with {@code ordered}, a key's lowest
 * pending job starts only when it is due, nothing of the key runs and (with
 * {@code blockOnFailure}) no job of the key is failed: enqueue order wins over priority
 * there. A job waiting for other jobs takes its place in its key's order when it becomes
 * pending. At most {@code keyRateLimit} starts of a key in any window.</li>
 * <li><b>Rate limits</b>: at most {@code permits} starts in any window of the given
 * length ending now, counted from the sliding log of starts (every start of a
 * rate-limited type or key is a row, retries too); the claim takes at most what is left
 * of the window. A job without a key is held only by its type's {@code rateLimit}. The
 * log holds the handlers' starts: a claim logs each start it takes as claimed, not
 * started, dated at its lease end, so that it counts in every window from now on; the
 * worker dates it when the handler begins ({@code JdbcJobStore.RECORD_HANDLER_START}),
 * and deletes it if the handler never begins (handed back, cancelled first). So in any
 * window, the last claim of the jobs whose handlers began in it counted every other one
 * (begun in its window, or not begun yet): at most {@code permits} handlers begin in any
 * window, whatever the delay from claim to start, as long as it is shorter than the
 * claim's lease and a window (after that an unstarted start has left every window; a dead
 * worker's permits are freed so). The count has no upper bound, so a claim whose time is
 * older than a start another claim logged (claims read their time before they wait for
 * the lock) still counts it, and so are the unstarted starts; starts are deleted only
 * well after every window that could count them ({@link #sweepBefore}).</li>
 * <li>When a rate limit held a job back, the plan says when the oldest start of the full
 * window leaves it ({@link Plan#throttledUntil()}), so the worker claims again then.</li>
 * </ol>
 * Counts of running jobs and of starts are exact across processes because the store reads
 * them after taking its per-type lock (SQLite's single writer, an advisory lock, a lock
 * row) for the rest of the claim transaction. What other transactions may still commit
 * between the read and the take only ends jobs, frees keys or makes jobs pending; of
 * that, only a key's earlier job becoming pending could let a later job of an ordered key
 * start first, so the take checks each job of an ordered key again in its own statement
 * ({@link #STILL_HEAD_OF_ORDERED_KEY}). Rate-limited types are never claimed ahead (a job
 * waiting in a buffer would count as started before it runs); types with limits per key
 * or order per key are: a job claimed ahead is {@code running} here, so it holds its key
 * until it ends, and in the part of a claim that waits for a slot an ordered key whose
 * next job is on its last attempt is passed over. Keys are released by job status alone:
 * a job that ends, is recovered after its worker died, cancelled, retried or deleted
 * frees its key with no bookkeeping.
 */
public final class FlowClaims {

	/**
	 * The order candidates are taken in: higher priority first, then earlier round, then
	 * earlier due time, then lower id.
	 */
	public static final Comparator<Ranked> ROUND_ORDER = Comparator.comparingInt(Ranked::priority)
		.reversed()
		.thenComparingInt(Ranked::round)
		.thenComparing(Ranked::runAt)
		.thenComparingLong(Ranked::id);

	/** Claim order among jobs without a key: priority, due time, id. */
	public static final Comparator<Candidate> CLAIM_ORDER = Comparator.comparingInt(Candidate::priority)
		.reversed()
		.thenComparing(Candidate::runAt)
		.thenComparingLong(Candidate::id);

	/**
	 * How much older than the longest window a start must be before a claim deletes it:
	 * how far behind another claim's time may be (see {@link #sweepBefore}).
	 */
	public static final Duration SWEEP_MARGIN = Duration.ofMinutes(1);

	/**
	 * The take's condition on a job {@code c} it takes (one of its WHERE clause's terms,
	 * on every store): a job of {@code :ordered_heads} is still the lowest pending job of
	 * its key, as {@link #allowed} asks of an ordered key's job. A transaction that
	 * commits between the claim's read and its take may have made an earlier job of the
	 * key pending (it waited for other jobs, or failed and was retried, or its worker
	 * died), and that job goes first. The rest of the rule needs no second look: jobs of
	 * the type start only in claims of the type, which hold its lock, and a job of the
	 * key that fails meanwhile (it waited for a job that failed) is as if it failed just
	 * after this claim. Bound by {@link Plan#bindHeads}.
	 */
	public static final String STILL_HEAD_OF_ORDERED_KEY = """
			NOT (c.id {in_ids :ordered_heads} AND EXISTS (
			    SELECT 1 FROM {jobs} h
			    WHERE h.job_key IS NOT NULL AND h.status IN ('pending', 'running', 'failed')
			      AND h.type = c.type AND h.status = 'pending' AND h.job_key = c.job_key AND h.id < c.id))
			""";

	/** Most keys a claim visits per type, however large its room. */
	static final int MAX_KEYS_VISITED = 1024;

	/** By type, the last key this process claimed or passed over. */
	private final Map<String, String> cursors = new ConcurrentHashMap<>();

	/** By type, when this process last deleted the starts that left every window. */
	private final Map<String, Instant> sweeps = new ConcurrentHashMap<>();

	/**
	 * By type with limits per key, the share of the keys its latest claim visited that
	 * could start nothing (see {@link #keysToVisit(String, int, FlowControl)}).
	 */
	private final Map<String, Double> heldShares = new ConcurrentHashMap<>();

	/** What the next take runs first, for tests (see {@link #beforeNextTake}). */
	private final AtomicReference<BeforeTake> beforeNextTake = new AtomicReference<>();

	/**
	 * Where the type's visit of keys starts: after this key ({@code null}: from the
	 * first).
	 */
	public String cursor(String type) {
		return this.cursors.get(type);
	}

	/**
	 * Has the next take of a claim by this instance run {@code hook} first, on the
	 * claim's connection inside its transaction: for tests of what a transaction that
	 * commits between a claim's read and its take changes.
	 */
	public void beforeNextTake(BeforeTake hook) {
		this.beforeNextTake.set(hook);
	}

	/**
	 * Runs what {@link #beforeNextTake} set, once; a store calls it just before it takes.
	 */
	public void beforeTake(Connection connection) throws SQLException {
		BeforeTake hook = this.beforeNextTake.getAndSet(null);
		if (hook != null) {
			hook.run(connection);
		}
	}

	/**
	 * How many keys a claim with {@code room} for the type visits at most: one per job it
	 * may take; with limits per key more, since some keys are likely held (running, out
	 * of their window), and a visit is an index probe.
	 */
	public static int keysToVisit(int room, FlowControl flow) {
		int keys = flow.limitsKeys() ? 4 * room + 16 : room;
		return Math.max(0, Math.min(keys, MAX_KEYS_VISITED));
	}

	/**
	 * How many keys a claim that reads all of them in one statement visits: as many as
	 * its room needs at the share of keys that the type's latest claim found held (a
	 * quarter more, and 4 more, since the share moves), at most
	 * {@link #keysToVisit(int, FlowControl)}. The statement cannot stop once enough keys
	 * can start, as {@link #read} does; each key it visits in vain is index probes,
	 * wasted. Before the type's first claim, and without limits per key, the most.
	 */
	public int keysToVisit(String type, int room, FlowControl flow) {
		int most = keysToVisit(room, flow);
		Double held = this.heldShares.get(type);
		if (held == null || !flow.limitsKeys()) {
			return most;
		}
		int needed = (int) Math.ceil(room / Math.max(1.0 - held, 0.25));
		return Math.min(most, needed + needed / 4 + 4);
	}

	/**
	 * How many of one key's due jobs the store reads, when the claim visits
	 * {@code keysVisited} keys of a type with {@code room}: an equal share of the room,
	 * and no more than the key may start (1 when ordered: its lowest pending job, due or
	 * not; its key concurrency).
	 */
	public static int jobsPerKey(int room, int keysVisited, FlowControl flow) {
		if (flow.ordered()) {
			return 1;
		}
		int share = Math.max(1, (room + Math.max(keysVisited, 1) - 1) / Math.max(keysVisited, 1));
		return (flow.keyConcurrency() > 0) ? Math.min(share, flow.keyConcurrency()) : share;
	}

	/**
	 * The start of a rate limit's window ending at {@code now}: starts after it count (a
	 * start exactly one window ago has left it).
	 */
	public static Instant windowStart(RateLimit limit, Instant now) {
		return now.minus(limit.window());
	}

	/**
	 * Whether the type's rate log is due a sweep of the starts that left every window of
	 * the type, and before when they started; {@code null} if not due. Once per longest
	 * window per process: the counts read only the window, so older rows cost space, not
	 * correctness. A start is kept {@link #SWEEP_MARGIN} longer than the longest window:
	 * another claim may count with an older time than this one (taken before it waited
	 * for the lock, or on a host whose clock is behind), and its window must still hold
	 * every start.
	 */
	public Instant sweepBefore(String type, FlowControl flow, Instant now) {
		Duration longest = longestWindow(flow);
		if (longest == null) {
			return null;
		}
		Instant last = this.sweeps.get(type);
		if (last != null && now.isBefore(last.plus(longest)) && !now.isBefore(last)) {
			return null;
		}
		this.sweeps.put(type, now);
		return now.minus(longest).minus(SWEEP_MARGIN);
	}

	private static Duration longestWindow(FlowControl flow) {
		Duration longest = null;
		for (RateLimit limit : new RateLimit[] { flow.rateLimit(), flow.keyRateLimit() }) {
			if (limit != null && (longest == null || limit.window().compareTo(longest) > 0)) {
				longest = limit.window();
			}
		}
		return longest;
	}

	/**
	 * Reads what one type offers a claim with {@code reads}, one statement at a time (for
	 * a store where a statement costs no round trip, or few): the starts in the type's
	 * rate window, then the keys after its cursor (wrapping around), each with its state
	 * and jobs, until as many keys can start a job as the room allows or
	 * {@link #keysToVisit} were visited.
	 * @param room most jobs of the type this claim takes
	 */
	public TypeRead read(Reads reads, String type, int room, FlowControl flow, Instant now) throws SQLException {
		Starts starts = (flow.rateLimit() != null)
				? reads.starts(type, Start.TYPE_WIDE, windowStart(flow.rateLimit(), now)) : Starts.NONE;
		TypeRead read = new TypeRead(type, room, flow, starts, List.of());
		if (typeAllowance(read) <= 0) {
			return read;
		}
		List<String> keys = keysAfterCursor(reads, type, keysToVisit(room, flow));
		int perKey = jobsPerKey(room, keys.size(), flow);
		List<KeyVisit> visits = new ArrayList<>();
		int keysThatStart = 0;
		for (String key : keys) {
			if (keysThatStart >= room) {
				break;
			}
			int running = flow.limitsKeys() && flow.runningPerKey() > 0 ? reads.running(type, key) : 0;
			boolean failed = flow.ordered() && flow.blockOnFailure() && running == 0 && reads.failed(type, key);
			Starts keyStarts = (flow.keyRateLimit() != null)
					? reads.starts(type, key, windowStart(flow.keyRateLimit(), now)) : Starts.NONE;
			KeyVisit visit = new KeyVisit(key, running, failed, null, keyStarts, List.of());
			if (allowanceBeforeJobs(flow, visit) > 0) {
				visit = new KeyVisit(key, running, failed, null, keyStarts,
						flow.ordered() ? reads.firstPending(type, key) : reads.dueJobs(type, key, perKey));
			}
			visits.add(visit);
			if (!allowed(flow, visit, now).isEmpty()) {
				keysThatStart++;
			}
		}
		return new TypeRead(type, room, flow, starts, visits);
	}

	/**
	 * Keys of the type with pending jobs, after its cursor in key order and then from the
	 * first up to the cursor, at most {@code most}.
	 */
	private List<String> keysAfterCursor(Reads reads, String type, int most) throws SQLException {
		String cursor = cursor(type);
		List<String> keys = new ArrayList<>();
		String after = (cursor != null) ? cursor : Start.TYPE_WIDE;
		for (String key; keys.size() < most && (key = reads.nextKey(type, after, null)) != null; after = key) {
			keys.add(key);
		}
		after = Start.TYPE_WIDE;
		for (String key; cursor != null && keys.size() < most
				&& (key = reads.nextKey(type, after, cursor)) != null; after = key) {
			keys.add(key);
		}
		return keys;
	}

	/**
	 * What a key may start before its jobs are read: 0 when its running jobs, a failed
	 * job or its rate window hold it.
	 */
	private static int allowanceBeforeJobs(FlowControl flow, KeyVisit visit) {
		if (flow.ordered() && (visit.running() > 0 || (flow.blockOnFailure() && visit.failed()))) {
			return 0;
		}
		if (flow.keyConcurrency() > 0 && visit.running() >= flow.keyConcurrency()) {
			return 0;
		}
		if (flow.keyRateLimit() != null && visit.starts().count() >= flow.keyRateLimit().permits()) {
			return 0;
		}
		return 1;
	}

	/**
	 * Chooses what a claim takes, and moves each visited type's cursor.
	 * @param unkeyed due pending jobs without a key, at most each type's room, in any
	 * order
	 * @param types every type the claim may take (with room left after its caps)
	 * @param limit most jobs in all
	 * @param now the claim's time
	 */
	public Plan plan(List<Candidate> unkeyed, List<TypeRead> types, int limit, Instant now) {
		Map<String, TypeRead> byType = new HashMap<>();
		for (TypeRead type : types) {
			byType.put(type.type(), type);
		}
		List<Ranked> ranked = new ArrayList<>();
		List<Candidate> sorted = new ArrayList<>(unkeyed);
		sorted.sort(CLAIM_ORDER);
		for (int i = 0; i < sorted.size(); i++) {
			ranked.add(new Ranked(sorted.get(i), i + 1));
		}
		Map<String, Integer> allowedByKey = new HashMap<>();
		for (TypeRead type : types) {
			for (KeyVisit visit : type.keys()) {
				List<Candidate> allowed = allowed(type.flow(), visit, now);
				allowedByKey.put(scope(type.type(), visit.key()), allowed.size());
				for (int i = 0; i < allowed.size(); i++) {
					ranked.add(new Ranked(allowed.get(i), i + 1));
				}
			}
		}
		ranked.sort(ROUND_ORDER);
		Map<String, Integer> taken = new HashMap<>();
		List<Candidate> chosen = new ArrayList<>();
		for (Ranked candidate : ranked) {
			if (chosen.size() >= limit) {
				break;
			}
			TypeRead type = byType.get(candidate.candidate().type());
			if (type == null) {
				continue;
			}
			int takenOfType = taken.getOrDefault(type.type(), 0);
			if (takenOfType < typeAllowance(type)) {
				taken.put(type.type(), takenOfType + 1);
				chosen.add(candidate.candidate());
			}
		}
		Set<String> chosenScopes = new HashSet<>();
		Map<String, Integer> chosenByKey = new HashMap<>();
		List<Start> starts = new ArrayList<>();
		for (Candidate job : chosen) {
			FlowControl flow = byType.get(job.type()).flow();
			if (job.key() != null) {
				chosenScopes.add(scope(job.type(), job.key()));
				chosenByKey.merge(scope(job.type(), job.key()), 1, Integer::sum);
			}
			if (flow.rateLimit() != null) {
				starts.add(new Start(job.type(), Start.TYPE_WIDE, job.id()));
			}
			if (job.key() != null && flow.keyRateLimit() != null) {
				starts.add(new Start(job.type(), job.key(), job.id()));
			}
		}
		Instant throttledUntil = null;
		for (TypeRead type : types) {
			moveCursor(type, allowedByKey, chosenScopes);
			recordHeldShare(type, allowedByKey);
			throttledUntil = earlier(throttledUntil,
					throttledUntil(type.flow().rateLimit(), type.starts(), taken.getOrDefault(type.type(), 0), now));
			RateLimit keyRate = type.flow().keyRateLimit();
			if (keyRate != null) {
				for (KeyVisit visit : type.keys()) {
					if (hasDueJob(visit, now)) {
						throttledUntil = earlier(throttledUntil, throttledUntil(keyRate, visit.starts(),
								chosenByKey.getOrDefault(scope(type.type(), visit.key()), 0), now));
					}
				}
			}
		}
		return new Plan(chosen, starts, throttledUntil, orderedHeads(chosen, byType));
	}

	/** The chosen jobs of ordered keys: what the take checks again. */
	private static List<Long> orderedHeads(List<Candidate> chosen, Map<String, TypeRead> byType) {
		List<Long> heads = new ArrayList<>();
		for (Candidate job : chosen) {
			if (job.key() != null && byType.get(job.type()).flow().ordered()) {
				heads.add(job.id());
			}
		}
		return heads;
	}

	private void recordHeldShare(TypeRead type, Map<String, Integer> allowedByKey) {
		if (!type.flow().limitsKeys() || type.keys().isEmpty()) {
			return;
		}
		int held = 0;
		for (KeyVisit visit : type.keys()) {
			if (allowedByKey.getOrDefault(scope(type.type(), visit.key()), 0) == 0) {
				held++;
			}
		}
		this.heldShares.put(type.type(), held / (double) type.keys().size());
	}

	/**
	 * The key's candidates its limits let start now, in enqueue order: with
	 * {@code ordered}, its lowest pending job (which the take checks again,
	 * {@link #STILL_HEAD_OF_ORDERED_KEY}) if it is due and nothing of the key runs or
	 * (with {@code blockOnFailure}) failed; else at most its key concurrency less its
	 * running jobs; at most what is left of its rate window.
	 */
	public static List<Candidate> allowed(FlowControl flow, KeyVisit visit, Instant now) {
		List<Candidate> due = visit.jobs().stream().filter((job) -> !job.runAt().isAfter(now)).toList();
		int allowance = due.size();
		if (flow.ordered()) {
			Candidate first = visit.jobs().isEmpty() ? null : visit.jobs().get(0);
			boolean free = visit.running() == 0 && !(flow.blockOnFailure() && visit.failed()) && first != null
					&& !first.runAt().isAfter(now)
					&& (visit.lowestPendingId() == null || visit.lowestPendingId() == first.id());
			allowance = free ? 1 : 0;
		}
		else if (flow.keyConcurrency() > 0) {
			allowance = Math.min(allowance, flow.keyConcurrency() - visit.running());
		}
		if (flow.keyRateLimit() != null) {
			allowance = Math.min(allowance, flow.keyRateLimit().permits() - visit.starts().count());
		}
		return due.subList(0, Math.max(0, Math.min(allowance, due.size())));
	}

	/**
	 * Most jobs of the type the claim takes: its room, and no more than is left of its
	 * rate window.
	 */
	public static int typeAllowance(TypeRead type) {
		RateLimit rate = type.flow().rateLimit();
		if (rate == null) {
			return type.room();
		}
		return Math.max(0, Math.min(type.room(), rate.permits() - type.starts().count()));
	}

	/**
	 * The type's cursor after this claim: the last visited key before the first key that
	 * could have started a job but got none (taken over by better candidates); every key
	 * before it was served or held by its limits. Unchanged if the first visited key was
	 * left out.
	 */
	private void moveCursor(TypeRead type, Map<String, Integer> allowedByKey, Set<String> chosenScopes) {
		String cursor = null;
		for (KeyVisit visit : type.keys()) {
			String scope = scope(type.type(), visit.key());
			if (allowedByKey.getOrDefault(scope, 0) > 0 && !chosenScopes.contains(scope)) {
				break;
			}
			cursor = visit.key();
		}
		if (cursor != null) {
			this.cursors.put(type.type(), cursor);
		}
	}

	private static boolean hasDueJob(KeyVisit visit, Instant now) {
		return visit.jobs().stream().anyMatch((job) -> !job.runAt().isAfter(now));
	}

	/**
	 * When the window of {@code limit} may let the next start, if this claim leaves it
	 * full: when its oldest start leaves it. A start claimed and not started yet (dated
	 * in the future, at its claim's lease end) begins at the earliest now, and so does
	 * this claim's: they leave the window a window from now at the earliest.
	 */
	private static Instant throttledUntil(RateLimit limit, Starts starts, int startedNow, Instant now) {
		if (limit == null || starts.count() + startedNow < limit.permits()) {
			return null;
		}
		Instant oldest = (starts.count() > 0 && starts.oldest() != null && starts.oldest().isBefore(now))
				? starts.oldest() : now;
		return oldest.plus(limit.window());
	}

	private static Instant earlier(Instant a, Instant b) {
		if (a == null) {
			return b;
		}
		return (b == null || a.isBefore(b)) ? a : b;
	}

	private static String scope(String type, String key) {
		return type + '\u0000' + key;
	}

	/**
	 * The reads of {@link #read}, each one statement of the store's.
	 */
	public interface Reads {

		/**
		 * The first key of the type with a pending job after {@code after} in key order
		 * (and not after {@code until}, when given), or {@code null}.
		 */
		String nextKey(String type, String after, String until) throws SQLException;

		/** Running jobs of the key. */
		int running(String type, String key) throws SQLException;

		/** Whether a job of the key failed for good. */
		boolean failed(String type, String key) throws SQLException;

		/**
		 * The key's lowest pending job, due or not, as a list of at most one; in the part
		 * of a claim that waits for a slot, none if that job is on its last attempt.
		 */
		List<Candidate> firstPending(String type, String key) throws SQLException;

		/** The key's due pending jobs in id order, at most {@code most}. */
		List<Candidate> dueJobs(String type, String key, int most) throws SQLException;

		/**
		 * The starts of a scope (a key, or {@link Start#TYPE_WIDE}) after
		 * {@code windowStart}.
		 */
		Starts starts(String type, String key, Instant windowStart) throws SQLException;

	}

	/**
	 * A due pending job a claim may take.
	 *
	 * @param id the job's id
	 * @param type its type
	 * @param key its key, or {@code null}
	 * @param priority its priority
	 * @param runAt when it is due
	 */
	public record Candidate(long id, String type, String key, int priority, Instant runAt) {

		public Candidate {
			Objects.requireNonNull(type, "'type' must not be null");
			Objects.requireNonNull(runAt, "'runAt' must not be null");
		}

	}

	/**
	 * A candidate with its round.
	 *
	 * @param candidate the job
	 * @param round its rank within its key, or among the claim's jobs without a key
	 */
	public record Ranked(Candidate candidate, int round) {

		int priority() {
			return this.candidate.priority();
		}

		Instant runAt() {
			return this.candidate.runAt();
		}

		long id() {
			return this.candidate.id();
		}

	}

	/**
	 * The starts of one rate-limited scope (a type, or a key of a type) in its window.
	 *
	 * @param count how many
	 * @param oldest when the oldest of them started, or {@code null} if none
	 */
	public record Starts(int count, Instant oldest) {

		/** No start in the window. */
		public static final Starts NONE = new Starts(0, null);

	}

	/**
	 * One key of a type, as a claim visited it.
	 *
	 * @param key the key
	 * @param running its running jobs (read when the type limits keys, else 0)
	 * @param failed whether a job of the key failed for good (read when the type is
	 * ordered and blocks on failure)
	 * @param lowestPendingId for an ordered type, the id of the key's lowest pending job
	 * (read without waiting for row locks), or {@code null} when {@code jobs} starts with
	 * it by construction
	 * @param starts its starts in its rate window (read when the type has a key rate
	 * limit)
	 * @param jobs its pending jobs in id order, at most {@link FlowClaims#jobsPerKey}:
	 * due ones only, except for an ordered type, where it is the lowest pending job, due
	 * or not
	 */
	public record KeyVisit(String key, int running, boolean failed, Long lowestPendingId, Starts starts,
			List<Candidate> jobs) {

		public KeyVisit {
			Objects.requireNonNull(key, "'key' must not be null");
			starts = (starts != null) ? starts : Starts.NONE;
		}

	}

	/**
	 * What a claim read of one type.
	 *
	 * @param type the type
	 * @param room most jobs of the type the claim takes (after its per-process and global
	 * caps)
	 * @param flow its flow control
	 * @param starts its starts in its rate window (when it has a rate limit)
	 * @param keys the keys visited, in visit order
	 */
	public record TypeRead(String type, int room, FlowControl flow, Starts starts, List<KeyVisit> keys) {

		public TypeRead {
			flow = (flow != null) ? flow : FlowControl.NONE;
			starts = (starts != null) ? starts : Starts.NONE;
		}

	}

	/**
	 * A start to record in the rate log.
	 *
	 * @param type the job's type
	 * @param key the job's key for a key's window, or {@link #TYPE_WIDE} for the type's
	 * @param jobId the job
	 */
	public record Start(String type, String key, long jobId) {

		/** The key of a type-wide start (keys are never blank). */
		public static final String TYPE_WIDE = "";

	}

	/**
	 * What a claim takes.
	 *
	 * @param chosen the jobs to take, in the order they were chosen
	 * @param starts the starts to record
	 * @param throttledUntil when a job held back by a rate limit may start, or
	 * {@code null}
	 * @param orderedHeads the chosen jobs of ordered keys, which the take checks again
	 * ({@link #STILL_HEAD_OF_ORDERED_KEY})
	 */
	public record Plan(List<Candidate> chosen, List<Start> starts, Instant throttledUntil, List<Long> orderedHeads) {

		/** The ids of the chosen jobs. */
		public List<Long> ids() {
			return this.chosen.stream().map(Candidate::id).toList();
		}

		/**
		 * Binds the parameters of {@link #STILL_HEAD_OF_ORDERED_KEY} in the take.
		 */
		public SqlStatement bindHeads(SqlStatement take) throws SQLException {
			return bindHeads(take, this.orderedHeads);
		}

		/**
		 * Binds the parameters of {@link #STILL_HEAD_OF_ORDERED_KEY} in a take of jobs
		 * that no plan chose (none of an ordered key).
		 */
		public static SqlStatement bindNoHeads(SqlStatement take) throws SQLException {
			return bindHeads(take, List.of());
		}

		private static SqlStatement bindHeads(SqlStatement take, List<Long> orderedHeads) throws SQLException {
			return take.bindIds("ordered_heads", orderedHeads);
		}

	}

	/**
	 * Work on the connection of a claim between its read and its take.
	 */
	@FunctionalInterface
	public interface BeforeTake {

		void run(Connection connection) throws SQLException;

	}

}
