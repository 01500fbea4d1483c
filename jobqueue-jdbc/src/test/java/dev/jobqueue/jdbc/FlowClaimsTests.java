package dev.jobqueue.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.jdbc.FlowClaims.Candidate;
import dev.jobqueue.jdbc.FlowClaims.KeyVisit;
import dev.jobqueue.jdbc.FlowClaims.Plan;
import dev.jobqueue.jdbc.FlowClaims.Start;
import dev.jobqueue.jdbc.FlowClaims.Starts;
import dev.jobqueue.jdbc.FlowClaims.TypeRead;

import static org.assertj.core.api.Assertions.assertThat;

/** The planning of claims with keys and flow control, alone: no database. */
class FlowClaimsTests {

	static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

	private final FlowClaims flow = new FlowClaims();

	private static Candidate job(long id, String key) {
		return job(id, key, 0, NOW.minusSeconds(10));
	}

	private static Candidate job(long id, String key, int priority, Instant runAt) {
		return new Candidate(id, "t", key, priority, runAt);
	}

	private static KeyVisit visit(String key, Candidate... jobs) {
		return new KeyVisit(key, 0, false, null, Starts.NONE, List.of(jobs));
	}

	private static TypeRead type(int room, FlowControl control, KeyVisit... keys) {
		return new TypeRead("t", room, control, Starts.NONE, List.of(keys));
	}

	@Test
	void keysTakeTurnsAndJobsWithoutAKeyAreOneLaneAmongThem() {
		List<Candidate> unkeyed = List.of(job(1, null), job(2, null), job(3, null));
		TypeRead read = type(5, FlowControl.NONE, visit("a", job(10, "a"), job(11, "a"), job(12, "a")),
				visit("b", job(20, "b")));

		Plan plan = this.flow.plan(unkeyed, List.of(read), 5, NOW);

		// Round 1: 1, 10, 20 (same priority and due time: by id); round 2: 2, 11.
		assertThat(plan.ids()).containsExactly(1L, 10L, 20L, 2L, 11L);
	}

	@Test
	void priorityComesBeforeRounds() {
		TypeRead read = type(3, FlowControl.NONE, visit("a", job(10, "a"), job(11, "a", 5, NOW.minusSeconds(1))),
				visit("b", job(20, "b")));

		assertThat(this.flow.plan(List.of(), List.of(read), 2, NOW).ids()).containsExactly(11L, 10L);
	}

	@Test
	void withoutKeysTheClaimOrderIsPriorityDueTimeAndId() {
		List<Candidate> unkeyed = List.of(job(3, null, 0, NOW.minusSeconds(30)), job(1, null, 0, NOW.minusSeconds(5)),
				job(2, null, 4, NOW.minusSeconds(1)));

		assertThat(this.flow.plan(unkeyed, List.of(type(10, FlowControl.NONE)), 10, NOW).ids()).containsExactly(2L, 3L,
				1L);
	}

	@Test
	void anOrderedKeyStartsItsLowestPendingJobOnlyWhenDueAndNothingOfItRunsOrFailed() {
		FlowControl ordered = new FlowControl(null, null, 0, true, true);
		Candidate due = job(10, "a");
		Candidate later = job(10, "a", 0, NOW.plusSeconds(1));

		assertThat(FlowClaims.allowed(ordered, visit("a", due), NOW)).containsExactly(due);
		assertThat(FlowClaims.allowed(ordered, visit("a", later), NOW)).isEmpty();
		assertThat(FlowClaims.allowed(ordered, new KeyVisit("a", 1, false, null, null, List.of(due)), NOW)).isEmpty();
		assertThat(FlowClaims.allowed(ordered, new KeyVisit("a", 0, true, null, null, List.of(due)), NOW)).isEmpty();
		assertThat(FlowClaims.allowed(new FlowControl(null, null, 0, true, false),
				new KeyVisit("a", 0, true, null, null, List.of(due)), NOW))
			.containsExactly(due);
		// The lowest pending job was locked and skipped: the next one must not go first.
		assertThat(FlowClaims.allowed(ordered, new KeyVisit("a", 0, false, 9L, null, List.of(due)), NOW)).isEmpty();
	}

	@Test
	void aKeysConcurrencyAndRateLimitBoundWhatItStarts() {
		Candidate[] jobs = { job(10, "a"), job(11, "a"), job(12, "a"), job(13, "a") };
		assertThat(FlowClaims.allowed(new FlowControl(null, null, 3, false, true),
				new KeyVisit("a", 2, false, null, null, List.of(jobs)), NOW))
			.extracting(Candidate::id)
			.containsExactly(10L);
		assertThat(FlowClaims.allowed(new FlowControl(null, RateLimit.parse("3/1m"), 0, false, true),
				new KeyVisit("a", 0, false, null, new Starts(1, NOW.minusSeconds(20)), List.of(jobs)), NOW))
			.extracting(Candidate::id)
			.containsExactly(10L, 11L);
	}

	@Test
	void aTypesRateLimitBoundsTheClaimAndSaysWhenTheWindowFrees() {
		FlowControl control = new FlowControl(RateLimit.parse("3/1s"), null, 0, false, true);
		Instant oldest = NOW.minusMillis(400);
		TypeRead read = new TypeRead("t", 10, control, new Starts(1, oldest), List.of());
		List<Candidate> unkeyed = List.of(job(1, null), job(2, null), job(3, null));

		Plan plan = this.flow.plan(unkeyed, List.of(read), 10, NOW);

		assertThat(plan.ids()).containsExactly(1L, 2L);
		assertThat(plan.starts()).containsExactly(new Start("t", Start.TYPE_WIDE, 1),
				new Start("t", Start.TYPE_WIDE, 2));
		assertThat(plan.throttledUntil()).isEqualTo(oldest.plusSeconds(1));
	}

	@Test
	void aWindowWithRoomLeftHoldsNothingBack() {
		FlowControl control = new FlowControl(RateLimit.parse("3/1s"), null, 0, false, true);
		TypeRead read = new TypeRead("t", 10, control, Starts.NONE, List.of());

		Plan plan = this.flow.plan(List.of(job(1, null)), List.of(read), 10, NOW);

		assertThat(plan.ids()).containsExactly(1L);
		assertThat(plan.throttledUntil()).isNull();
	}

	@Test
	void aKeyOutOfItsWindowSaysWhenItMayStartAgainAndLogsKeyStarts() {
		FlowControl control = new FlowControl(null, RateLimit.parse("1/1m"), 0, false, true);
		Instant started = NOW.minusSeconds(15);
		TypeRead read = type(10, control,
				new KeyVisit("a", 0, false, null, new Starts(1, started), List.of(job(10, "a"))),
				visit("b", job(20, "b"), job(21, "b")));

		Plan plan = this.flow.plan(List.of(), List.of(read), 10, NOW);

		assertThat(plan.ids()).containsExactly(20L);
		assertThat(plan.starts()).containsExactly(new Start("t", "b", 20));
		assertThat(plan.throttledUntil()).isEqualTo(started.plus(Duration.ofMinutes(1)));
	}

	@Test
	void theCursorMovesPastServedAndHeldKeysButNotPastAKeyLeftOut() {
		FlowControl control = new FlowControl(null, null, 1, false, true);
		TypeRead read = type(2, control, new KeyVisit("a", 1, false, null, null, List.of(job(10, "a"))),
				visit("b", job(20, "b")), visit("c", job(30, "c")), visit("d", job(40, "d")));

		Plan plan = this.flow.plan(List.of(), List.of(read), 2, NOW);

		// "a" is held (running), "b" and "c" start, "d" is left out: the next visit
		// starts
		// at "d".
		assertThat(plan.ids()).containsExactly(20L, 30L);
		assertThat(this.flow.cursor("t")).isEqualTo("c");
	}

	@Test
	void aTypeRateLimitAppliesToJobsWithAndWithoutAKey() {
		FlowControl control = new FlowControl(RateLimit.parse("2/1s"), null, 0, false, true);
		TypeRead read = type(10, control, visit("a", job(10, "a")), visit("b", job(20, "b")));

		Plan plan = this.flow.plan(List.of(job(1, null)), List.of(read), 10, NOW);

		assertThat(plan.ids()).containsExactly(1L, 10L);
		assertThat(plan.throttledUntil()).isEqualTo(NOW.plusSeconds(1));
	}

	@Test
	void theRateLogIsSweptOncePerLongestWindow() {
		FlowControl control = new FlowControl(RateLimit.parse("5/1s"), RateLimit.parse("1/1m"), 0, false, true);

		Duration kept = Duration.ofMinutes(1).plus(FlowClaims.SWEEP_MARGIN);
		assertThat(this.flow.sweepBefore("t", control, NOW)).isEqualTo(NOW.minus(kept));
		assertThat(this.flow.sweepBefore("t", control, NOW.plusSeconds(59))).isNull();
		assertThat(this.flow.sweepBefore("t", control, NOW.plusSeconds(60))).isEqualTo(NOW.plusSeconds(60).minus(kept));
		assertThat(this.flow.sweepBefore("t", FlowControl.NONE, NOW)).isNull();
	}

	@Test
	void aClaimVisitsOneKeyPerJobOrMoreWhenKeysAreLimited() {
		assertThat(FlowClaims.keysToVisit(8, FlowControl.NONE)).isEqualTo(8);
		assertThat(FlowClaims.keysToVisit(8, new FlowControl(null, null, 1, false, true))).isEqualTo(48);
		assertThat(FlowClaims.keysToVisit(5000, FlowControl.NONE)).isEqualTo(FlowClaims.MAX_KEYS_VISITED);
		assertThat(FlowClaims.jobsPerKey(10, 3, FlowControl.NONE)).isEqualTo(4);
		assertThat(FlowClaims.jobsPerKey(10, 0, FlowControl.NONE)).isEqualTo(10);
		assertThat(FlowClaims.jobsPerKey(10, 3, new FlowControl(null, null, 2, false, true))).isEqualTo(2);
		assertThat(FlowClaims.jobsPerKey(10, 1, new FlowControl(null, null, 0, true, true))).isEqualTo(1);
	}

	@Test
	void aClaimInOneStatementVisitsTheKeysItsRoomNeedsAtTheShareTheLatestClaimFoundHeld() {
		FlowControl control = new FlowControl(null, null, 1, false, true);
		assertThat(this.flow.keysToVisit("t", 8, control)).as("no claim yet").isEqualTo(48);

		KeyVisit[] visits = new KeyVisit[10];
		for (int i = 0; i < visits.length; i++) {
			// Every other key runs a job.
			visits[i] = new KeyVisit("k" + i, i % 2, false, null, null, List.of(job(100 + i, "k" + i)));
		}
		this.flow.plan(List.of(), List.of(type(8, control, visits)), 8, NOW);
		// 8 keys at half of them free, a quarter more and 4 more.
		assertThat(this.flow.keysToVisit("t", 8, control)).isEqualTo(24);

		this.flow.plan(List.of(), List.of(type(8, control, visit("a", job(1, "a")))), 8, NOW);
		assertThat(this.flow.keysToVisit("t", 8, control)).isEqualTo(14);
		assertThat(this.flow.keysToVisit("t", 100, control)).isEqualTo(129);
		assertThat(this.flow.keysToVisit("other", 8, control)).isEqualTo(48);
		assertThat(this.flow.keysToVisit("t", 8, FlowControl.NONE)).isEqualTo(8);
	}

	@Test
	void aPlanNamesTheChosenJobsOfOrderedKeysForTheTakeToCheckAgain() {
		FlowControl ordered = new FlowControl(null, null, 0, true, true);
		TypeRead read = type(3, ordered, visit("a", job(10, "a")), visit("b", job(20, "b")));

		Plan plan = this.flow.plan(List.of(job(1, null)), List.of(read), 3, NOW);

		assertThat(plan.ids()).containsExactlyInAnyOrder(1L, 10L, 20L);
		assertThat(plan.orderedHeads()).containsExactlyInAnyOrder(10L, 20L);
		assertThat(this.flow.plan(List.of(), List.of(type(3, FlowControl.NONE, visit("a", job(10, "a")))), 3, NOW)
			.orderedHeads()).isEmpty();
	}

	@Test
	void readVisitsKeysAfterTheCursorAndWrapsAround() throws Exception {
		List<String> keys = List.of("a", "b", "c", "d");
		List<String> visited = new ArrayList<>();
		FlowClaims.Reads reads = new FlowClaims.Reads() {

			@Override
			public String nextKey(String type, String after, String until) {
				return keys.stream()
					.filter((key) -> key.compareTo(after) > 0 && (until == null || key.compareTo(until) <= 0))
					.findFirst()
					.orElse(null);
			}

			@Override
			public int running(String type, String key) {
				return 0;
			}

			@Override
			public boolean failed(String type, String key) {
				return false;
			}

			@Override
			public List<Candidate> firstPending(String type, String key) {
				return dueJobs(type, key, 1);
			}

			@Override
			public List<Candidate> dueJobs(String type, String key, int most) {
				visited.add(key);
				return List.of(job(100 + keys.indexOf(key), key));
			}

			@Override
			public Starts starts(String type, String key, Instant windowStart) {
				return Starts.NONE;
			}

		};
		Plan first = this.flow.plan(List.of(), List.of(this.flow.read(reads, "t", 2, FlowControl.NONE, NOW)), 2, NOW);
		Plan second = this.flow.plan(List.of(), List.of(this.flow.read(reads, "t", 3, FlowControl.NONE, NOW)), 3, NOW);

		assertThat(first.ids()).containsExactly(100L, 101L);
		assertThat(second.ids()).containsExactly(100L, 102L, 103L);
		assertThat(visited).containsExactly("a", "b", "c", "d", "a");
		assertThat(this.flow.cursor("t")).isEqualTo("a");
	}

}
